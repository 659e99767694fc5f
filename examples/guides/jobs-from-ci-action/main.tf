# Running a job from CI with an action (Terraform 1.16 and later).
terraform {
  required_version = ">= 1.16"

  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

provider "dataintegration" {}

variable "job_name" {
  description = "The exact name of the job to run."
  type        = string
}

variable "commit" {
  description = "The commit the pipeline runs for: a new one runs the job again."
  type        = string
}

variable "full_refresh" {
  description = "Whether a run reloads everything."
  type        = bool
  default     = false
}

# A new commit replaces this resource, whose creation runs the job; a failed
# run taints it, so the next apply of the same commit runs the job again.
resource "terraform_data" "commit" {
  triggers_replace = var.commit

  lifecycle {
    action_trigger {
      events     = [after_create]
      actions    = [action.dataintegration_run_job.this]
      on_failure = taint
    }
  }
}

# Waits for a run of the previous commit still going, up to the timeout.
action "dataintegration_run_job" "this" {
  config {
    job_name           = var.job_name
    force_full_refresh = var.full_refresh
    if_running         = "wait"
    timeout            = "15m"
  }
}

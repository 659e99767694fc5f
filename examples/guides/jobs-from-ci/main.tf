# Running a job from CI: once per commit, a full refresh when asked.
terraform {
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
  description = "The commit the pipeline runs for: a new one triggers the job again."
  type        = string
}

variable "full_refresh" {
  description = "Whether this run reloads everything."
  type        = bool
  default     = false
}

# A new commit runs the job; a rerun of the same commit sends no request.
resource "dataintegration_job_trigger" "this" {
  job_name           = var.job_name
  force_full_refresh = var.full_refresh

  triggers = {
    commit = var.commit
  }

  timeouts {
    create = "2m"
  }
}

output "job_id" {
  description = "The job the trigger ran."
  value       = dataintegration_job_trigger.this.job_id
}

output "triggered_at" {
  description = "When the provider received the service's acceptance of the trigger, by this machine's clock, in whole seconds."
  value       = dataintegration_job_trigger.this.triggered_at
}

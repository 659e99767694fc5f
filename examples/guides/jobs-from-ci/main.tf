# Running a job from CI: trigger it once per commit, with a full refresh when
# the pipeline asks for one.
terraform {
  required_providers {
    dataintegration = {
      source = "dataintegration/dataintegration"
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

data "dataintegration_job" "this" {
  name = var.job_name
}

resource "dataintegration_job_trigger" "this" {
  job_id             = data.dataintegration_job.this.id
  force_full_refresh = var.full_refresh

  triggers = {
    commit = var.commit
  }

  timeouts {
    create = "2m"
  }
}

output "job_id" {
  value = dataintegration_job_trigger.this.job_id
}

output "triggered_at" {
  value = dataintegration_job_trigger.this.triggered_at
}

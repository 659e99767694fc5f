# The demo of `make demo`: list the active jobs of the sandbox's workspace.
# The provider reads DATAINTEGRATION_BASE_URL, DATAINTEGRATION_API_KEY and
# DATAINTEGRATION_WORKSPACE_ID, which the sandbox prints when it starts.

terraform {
  required_providers {
    dataintegration = {
      source = "dataintegration/dataintegration"
    }
  }
}

provider "dataintegration" {}

data "dataintegration_jobs" "active" {
  is_active = true
  ordering  = "name"
}

output "active_jobs" {
  description = "The names of the workspace's active jobs, in order."
  value       = data.dataintegration_jobs.active.jobs[*].name
}

variable "schema_version" {
  description = "The version of the warehouse schema the job loads into."
  type        = string
}

# Runs the job named "Orders to warehouse" once, with a full refresh, after
# the schema version is first applied and each time it changes. If the job
# is still running from an earlier run, the action waits for it to end (up
# to 15 minutes) instead of failing.
action "dataintegration_run_job" "orders" {
  config {
    job_name           = "Orders to warehouse"
    force_full_refresh = true
    if_running         = "wait"
    timeout            = "15m"
  }
}

resource "terraform_data" "schema_version" {
  input = var.schema_version

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.dataintegration_run_job.orders]
    }
  }
}

# On demand, with nothing else applied:
#   terraform apply -invoke=action.dataintegration_run_job.orders

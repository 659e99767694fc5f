variable "schema_version" {
  description = "The version of the warehouse schema the job loads into."
  type        = string
}

# Runs the job, with a full refresh, whenever the schema version is applied
# or changes, waiting up to 15 minutes for a run still going.
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

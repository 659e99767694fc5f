variable "schema_version" {
  description = "The version of the warehouse schema the job loads into."
  type        = string
}

# Runs the job named "Orders to warehouse" once when created, with a full
# refresh, and again whenever the schema version changes. The name is
# resolved to the job when the trigger is created; `job_id` names a job by
# its ID instead. Destroying the trigger cancels the job's execution if it
# is still running.
resource "dataintegration_job_trigger" "orders" {
  job_name           = "Orders to warehouse"
  force_full_refresh = true
  cancel_on_destroy  = true

  triggers = {
    schema_version = var.schema_version
  }

  timeouts {
    create = "2m"
  }
}

output "orders_job_id" {
  description = "The job the trigger ran."
  value       = dataintegration_job_trigger.orders.job_id
}

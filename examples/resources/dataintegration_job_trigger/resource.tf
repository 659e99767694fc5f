variable "schema_version" {
  description = "The version of the warehouse schema the job loads into."
  type        = string
}

# Runs the job again whenever the schema version changes.
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

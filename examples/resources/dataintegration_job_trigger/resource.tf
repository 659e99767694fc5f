variable "schema_version" {
  description = "The version of the warehouse schema the job loads into."
  type        = string
}

data "dataintegration_job" "orders" {
  name = "Orders to warehouse"
}

# Runs the job once when created, with a full refresh, and again whenever
# the schema version changes. Destroying the trigger cancels the job's
# execution if it is still running.
resource "dataintegration_job_trigger" "orders" {
  job_id             = data.dataintegration_job.orders.id
  force_full_refresh = true
  cancel_on_destroy  = true

  triggers = {
    schema_version = var.schema_version
  }

  timeouts {
    create = "2m"
  }
}

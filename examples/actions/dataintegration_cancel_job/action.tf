# Cancels the running execution of the job named "Orders to warehouse", on
# demand, with nothing else applied:
#   terraform apply -invoke=action.dataintegration_cancel_job.orders
# A job with no running execution gives a warning, not an error.
action "dataintegration_cancel_job" "orders" {
  config {
    job_name = "Orders to warehouse"
  }
}

# On demand, with nothing else applied:
#   terraform apply -invoke=action.dataintegration_cancel_job.orders
action "dataintegration_cancel_job" "orders" {
  config {
    job_name = "Orders to warehouse"
  }
}

# By exact name:
data "dataintegration_job" "orders" {
  name = "Orders to warehouse"
}

# Or by ID:
data "dataintegration_job" "by_id" {
  id = "3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a"
}

output "orders_is_active" {
  value = data.dataintegration_job.orders.is_active
}

# By exact name, among the workspace's customer-service connectors:
data "dataintegration_customer_service_connector" "support" {
  name = "Support desk"
}

# Or by ID:
data "dataintegration_customer_service_connector" "by_id" {
  id = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
}

output "support_streams" {
  value = data.dataintegration_customer_service_connector.support.streams
}

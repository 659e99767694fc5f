# Every customer-service connector of the provider's workspace:
data "dataintegration_customer_service_connectors" "all" {}

# Those named exactly "Support desk" in another workspace:
data "dataintegration_customer_service_connectors" "support" {
  workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
  name         = "Support desk"
}

output "connector_names" {
  value = [for c in data.dataintegration_customer_service_connectors.all.connectors : c.name]
}

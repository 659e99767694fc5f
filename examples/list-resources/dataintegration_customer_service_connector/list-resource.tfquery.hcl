# Every customer-service connector of the provider's workspace, with every
# attribute but the token (include_resource), for
# `terraform query -generate-config-out=generated.tf`.
list "dataintegration_customer_service_connector" "all" {
  provider         = dataintegration
  include_resource = true
}

# The connectors named exactly "Support EU", in another workspace.
list "dataintegration_customer_service_connector" "support_eu" {
  provider = dataintegration

  config {
    workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
    name         = "Support EU"
  }
}

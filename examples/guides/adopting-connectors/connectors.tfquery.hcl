# Every customer-service connector of the provider's workspace, with its
# attributes, so that -generate-config-out can write their resource blocks.
list "dataintegration_customer_service_connector" "all" {
  provider         = dataintegration
  include_resource = true
}

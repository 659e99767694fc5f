import {
  to = dataintegration_customer_service_connector.support
  id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f/0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
}

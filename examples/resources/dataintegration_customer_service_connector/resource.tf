variable "platform_token" {
  description = "The customer-service platform's API key."
  type        = string
  sensitive   = true
}

resource "dataintegration_customer_service_connector" "support" {
  name        = "Support desk"
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = var.platform_token

  # Optional: every stream when left out.
  streams = ["tickets", "ticket_interactions", "ticket_tags", "chats"]
}

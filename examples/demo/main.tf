# The demo of `make demo`. The provider reads DATAINTEGRATION_BASE_URL,
# DATAINTEGRATION_API_KEY and DATAINTEGRATION_WORKSPACE_ID.

terraform {
  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

provider "dataintegration" {}

variable "platform_token" {
  description = "The customer-service platform's API key. The sandbox accepts any; pass a real one with TF_VAR_platform_token."
  type        = string
  sensitive   = true
  default     = "demo-platform-token"
}

resource "dataintegration_customer_service_connector" "support" {
  name        = "Support desk"
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = var.platform_token
  streams     = ["tickets", "ticket_interactions", "chats"]
}

# Runs the connector's job (named after it) again when its streams change
# or it is created anew; a new token plans no change here.
resource "dataintegration_job_trigger" "support_sync" {
  job_name           = dataintegration_customer_service_connector.support.name
  force_full_refresh = true
  cancel_on_destroy  = true
  triggers = {
    connector = dataintegration_customer_service_connector.support.id
    streams   = join(",", dataintegration_customer_service_connector.support.streams)
  }
}

data "dataintegration_job" "support" {
  id = dataintegration_job_trigger.support_sync.job_id
}

output "connector_id" {
  description = "The connector's ID."
  value       = dataintegration_customer_service_connector.support.id
}

output "connector_job" {
  description = "The job the service created for the connector."
  value = {
    id          = data.dataintegration_job.support.id
    name        = data.dataintegration_job.support.name
    schema_name = data.dataintegration_job.support.schema_name
  }
}

output "triggered_job_id" {
  description = "The job the trigger ran."
  value       = dataintegration_job_trigger.support_sync.job_id
}

output "triggered_at" {
  description = "When the service accepted the trigger, by this machine's clock."
  value       = dataintegration_job_trigger.support_sync.triggered_at
}

# The demo of `make demo`: a customer-service connector, the job the service
# created for it, and a trigger of that job.
# The provider reads DATAINTEGRATION_BASE_URL, DATAINTEGRATION_API_KEY and
# DATAINTEGRATION_WORKSPACE_ID, which the sandbox prints when it starts.

terraform {
  required_providers {
    dataintegration = {
      source = "dataintegration/dataintegration"
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

# The service creates one job for each connector, whose data source is the
# connector's name. depends_on makes Terraform read it once the connector
# exists.
data "dataintegration_jobs" "support" {
  data_source = dataintegration_customer_service_connector.support.name
  depends_on  = [dataintegration_customer_service_connector.support]
}

# Runs the connector's job once, with a full refresh, and again whenever the
# connector's streams change.
resource "dataintegration_job_trigger" "support_sync" {
  job_id             = data.dataintegration_jobs.support.jobs[0].id
  force_full_refresh = true
  cancel_on_destroy  = true
  triggers = {
    streams = join(",", dataintegration_customer_service_connector.support.streams)
  }
}

output "connector_id" {
  description = "The connector's ID."
  value       = dataintegration_customer_service_connector.support.id
}

output "connector_job" {
  description = "The job the service created for the connector."
  value = {
    id          = data.dataintegration_jobs.support.jobs[0].id
    name        = data.dataintegration_jobs.support.jobs[0].name
    schema_name = data.dataintegration_jobs.support.jobs[0].schema_name
  }
}

output "triggered_job_id" {
  description = "The job the trigger ran."
  value       = dataintegration_job_trigger.support_sync.job_id
}

output "triggered_at" {
  description = "When the service accepted the trigger."
  value       = dataintegration_job_trigger.support_sync.triggered_at
}

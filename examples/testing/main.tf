# A module to test with `terraform test` (the guide "Testing
# configurations"): a customer-service connector, a first full sync of the
# job the service creates for it, and that job read back. The tests are in
# tests/: mocked.tftest.hcl runs offline with the mock defaults of mocks/,
# sandbox.tftest.hcl against the sandbox or the service.
terraform {
  # Ephemeral variables and write-only arguments.
  required_version = ">= 1.11"
  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

variable "name" {
  description = "The connector's name, which its job takes."
  type        = string
}

variable "url" {
  description = "The account's address on the customer-service platform, https://<account_host>."
  type        = string
}

variable "agent_email" {
  description = "The e-mail address of the agent whom the token belongs to."
  type        = string
}

variable "token" {
  description = "The platform's API key: write-only, never in the plan or the state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "token_version" {
  description = "Raise it by one whenever token holds a new key."
  type        = number
  default     = 1
}

variable "streams" {
  description = "The streams to load; null for all of them."
  type        = list(string)
  default     = null
}

resource "dataintegration_customer_service_connector" "this" {
  name             = var.name
  url              = var.url
  agent_email      = var.agent_email
  token_wo         = var.token
  token_wo_version = var.token_version
  streams          = var.streams
}

# The first sync: a full refresh of the connector's job, found by its name,
# run again when the connector is replaced.
resource "dataintegration_job_trigger" "first_sync" {
  job_name           = dataintegration_customer_service_connector.this.name
  force_full_refresh = true
  triggers = {
    connector = dataintegration_customer_service_connector.this.id
  }
}

data "dataintegration_job" "this" {
  id = dataintegration_job_trigger.first_sync.job_id
}

output "connector_id" {
  description = "The connector's ID."
  value       = dataintegration_customer_service_connector.this.id
}

output "job_id" {
  description = "The ID of the connector's job, which the first sync ran."
  value       = data.dataintegration_job.this.id
}

output "schema_name" {
  description = "The schema the job loads into."
  value       = data.dataintegration_job.this.schema_name
}

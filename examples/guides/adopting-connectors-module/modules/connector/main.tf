# One customer-service connector, adopted when import_id is given: the
# import block inside the module needs Terraform 1.16 or later. Terraform
# 1.14 and 1.15 would ignore it and create a second connector, hence the
# required_version.
terraform {
  required_version = ">= 1.16"

  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

variable "name" {
  description = "The connector's name."
  type        = string
}

variable "url" {
  description = "The customer-service platform's URL."
  type        = string
}

variable "agent_email" {
  description = "The agent's email address the connector signs in with."
  type        = string
}

variable "streams" {
  description = "The streams the connector reads."
  type        = list(string)
}

variable "token" {
  description = "The platform's API key, sent as the write-only token_wo."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "token_version" {
  description = "Raise it to send a new token."
  type        = number
  default     = 1
}

variable "import_id" {
  description = "The ID of a connector made outside Terraform, to adopt instead of creating one; null creates one."
  type        = string
  default     = null
}

resource "dataintegration_customer_service_connector" "this" {
  name             = var.name
  url              = var.url
  agent_email      = var.agent_email
  streams          = var.streams
  token_wo         = var.token
  token_wo_version = var.token_version
}

# No import at all when import_id is null; once the connector is in the
# state, Terraform ignores the block.
import {
  for_each = var.import_id == null ? toset([]) : toset([var.import_id])
  to       = dataintegration_customer_service_connector.this
  id       = each.value
}

output "id" {
  description = "The connector's ID."
  value       = dataintegration_customer_service_connector.this.id
}

# Three connectors managed through a module of one connector (Terraform
# 1.16 and later). Those made outside Terraform are adopted by the import
# block inside the module, from the IDs in var.adopt.
terraform {
  required_version = ">= 1.16"

  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

provider "dataintegration" {}

variable "platform_token" {
  description = "The customer-service platform's API key, which the connectors sign in with."
  type        = string
  sensitive   = true
  ephemeral   = true
}

locals {
  desks = toset(["Support EU", "Support US", "Support APAC"])
}

variable "adopt" {
  description = "The IDs of connectors made outside Terraform, by name, to adopt rather than create."
  type        = map(string)
  default     = {}

  # A name written otherwise would be created anew, beside the connector.
  validation {
    condition     = alltrue([for name in keys(var.adopt) : contains(local.desks, name)])
    error_message = "Each name in adopt must be one of the connectors' names, written the same: ${join(", ", local.desks)}."
  }

  # One connector adopted under two names would be managed twice.
  validation {
    condition     = length(distinct([for id in values(var.adopt) : lower(trimspace(id))])) == length(var.adopt)
    error_message = "Each ID in adopt must be given once: two names with one ID would manage one connector twice."
  }
}

module "connector" {
  source   = "./modules/connector"
  for_each = local.desks

  name        = each.key
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  streams     = ["tickets", "chats"]
  token       = var.platform_token
  import_id   = lookup(var.adopt, each.key, null)
}

output "connector_ids" {
  description = "The connectors' IDs, by name."
  value       = { for name, c in module.connector : name => c.id }
}

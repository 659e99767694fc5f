# Three connectors, adopted from the service by name with import blocks
# (Terraform 1.7 and later, OpenTofu 1.7 and later), created when missing.
terraform {
  required_version = ">= 1.7"

  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

# base_url, api_key and workspace_id from DATAINTEGRATION_BASE_URL,
# DATAINTEGRATION_API_KEY and DATAINTEGRATION_WORKSPACE_ID.
provider "dataintegration" {}

variable "platform_token" {
  description = "The customer-service platform's API key, which the connectors sign in with."
  type        = string
  sensitive   = true
}

# Each connector's configuration, by name.
locals {
  desks = {
    "Support EU"   = ["tickets", "chats"]
    "Support US"   = ["tickets", "chats"]
    "Support APAC" = ["tickets", "chats"]
  }
}

# The workspace's connectors, read at plan.
data "dataintegration_customer_service_connectors" "existing" {}

# Adopts the workspace's connectors named as a desk is.
import {
  for_each = {
    for c in data.dataintegration_customer_service_connectors.existing.connectors : c.name => c
    if contains(keys(local.desks), c.name)
  }
  to = dataintegration_customer_service_connector.desk[each.key]
  id = "${each.value.workspace_id}/${each.value.id}"
}

resource "dataintegration_customer_service_connector" "desk" {
  for_each = local.desks

  name        = each.key
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  streams     = each.value
  token       = var.platform_token
}

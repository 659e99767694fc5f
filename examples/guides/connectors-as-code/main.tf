# Managing connectors as code: one connector per support desk, with each
# token passed in as a sensitive variable, never written in the code.
terraform {
  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

provider "dataintegration" {}

variable "desks" {
  description = "The support desks to load, by connector name."
  type = map(object({
    url         = string
    agent_email = string
    streams     = optional(list(string))
  }))
  default = {
    "Support EU" = {
      url         = "https://acme-eu.example-helpdesk.com"
      agent_email = "agent@acme.eu"
      streams     = ["tickets", "ticket_interactions", "chats"]
    }
    "Support US" = {
      url         = "https://acme-us.example-helpdesk.com"
      agent_email = "agent@acme.com"
    }
  }
}

variable "platform_tokens" {
  description = "Each desk's platform API key, by connector name. Set it with TF_VAR_platform_tokens or a *.tfvars file kept out of version control."
  type        = map(string)
  sensitive   = true
}

resource "dataintegration_customer_service_connector" "desk" {
  for_each = var.desks

  name        = each.key
  url         = each.value.url
  agent_email = each.value.agent_email
  token       = var.platform_tokens[each.key]
  streams     = each.value.streams
}

output "connector_ids" {
  value = { for name, c in dataintegration_customer_service_connector.desk : name => c.id }
}

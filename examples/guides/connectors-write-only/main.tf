# A connector whose token never reaches the plan or the state: an ephemeral
# variable (Terraform 1.10+, OpenTofu 1.11+) into token_wo, a write-only
# attribute (Terraform 1.11+, OpenTofu 1.11+).
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
  description = "The platform's API key; set it with TF_VAR_platform_token."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "platform_token_version" {
  description = "Raise it by one whenever platform_token holds a new token."
  type        = number
  default     = 1
}

resource "dataintegration_customer_service_connector" "support" {
  name             = "Support desk"
  url              = "https://acme.example-helpdesk.com"
  agent_email      = "agent@acme.com"
  token_wo         = var.platform_token
  token_wo_version = var.platform_token_version
}

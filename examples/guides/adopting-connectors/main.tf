terraform {
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

# The platform's token, which the service never returns. Ephemeral, for
# token_wo.
variable "platform_token" {
  description = "The customer-service platform's API key."
  type        = string
  sensitive   = true
  ephemeral   = true
}

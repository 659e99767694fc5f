terraform {
  required_providers {
    dataintegration = {
      source  = "dataintegration/dataintegration"
      version = "~> 0.1"
    }
  }
}

variable "dataintegration_api_key" {
  description = "The service's API key; set it with TF_VAR_dataintegration_api_key, or leave api_key out and set DATAINTEGRATION_API_KEY."
  type        = string
  sensitive   = true
}

provider "dataintegration" {
  base_url     = "https://api.example.com"
  api_key      = var.dataintegration_api_key
  workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"

  # All optional; these are the defaults.
  request_timeout         = "30s"
  max_concurrent_requests = 8

  # Unset by default: a request is retried until its time limit. Set it to
  # fail fast instead.
  # max_retries = 3
}

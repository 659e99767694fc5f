# Cancelling a connector's running job before the connector is destroyed,
# with an action (Terraform 1.16 and later). The job is the one named after
# the connector, as the sandbox names the job it makes for each connector;
# where your connector's job has another name, give that name instead.
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
  description = "The customer-service platform's API key."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "dataintegration_customer_service_connector" "support" {
  name             = "Support desk"
  url              = "https://acme.example-helpdesk.com"
  agent_email      = "agent@acme.com"
  token_wo         = var.platform_token
  token_wo_version = 1
  streams          = ["tickets", "chats"]

  lifecycle {
    # Before Terraform deletes the connector (destroy, or a replacement),
    # the running execution of its job is cancelled.
    action_trigger {
      events  = [before_destroy]
      actions = [action.dataintegration_cancel_job.support]
    }
  }
}

# caller is the resource whose action_trigger invokes the action: here the
# connector, as it is before it is destroyed.
action "dataintegration_cancel_job" "support" {
  config {
    job_name = caller.name
  }
}

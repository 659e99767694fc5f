# Offline: the provider is mocked, with the defaults the provider publishes
# in mocks/. Nothing is sent to the service, and no credentials are needed.
# OpenTofu reads mocked.tofutest.hcl instead of this file.
mock_provider "dataintegration" {
  source = "./mocks"
}

variables {
  name        = "Support desk"
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = "not-a-real-token"
  streams     = ["tickets", "chats"]
}

# What the configuration decides is known at plan.
run "plan" {
  command = plan

  assert {
    condition     = dataintegration_customer_service_connector.this.name == "Support desk"
    error_message = "The connector is not named after var.name."
  }
  assert {
    condition     = dataintegration_job_trigger.first_sync.job_name == "Support desk"
    error_message = "The first sync does not run the connector's job."
  }
  assert {
    condition     = dataintegration_job_trigger.first_sync.force_full_refresh
    error_message = "The first sync is not a full refresh."
  }
}

# What the service decides is known after apply: here, the mock's defaults.
run "apply" {
  command = apply

  assert {
    condition     = can(regex("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", output.connector_id))
    error_message = "The connector's ID is not a UUID."
  }
  assert {
    condition     = output.job_id == dataintegration_job_trigger.first_sync.job_id
    error_message = "The job read back is not the one the first sync ran."
  }
  assert {
    condition     = dataintegration_customer_service_connector.this.streams == tolist(["tickets", "chats"])
    error_message = "The connector does not load the streams asked for."
  }
}

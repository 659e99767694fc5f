# mocked.tftest.hcl for OpenTofu, which reads this file instead of that one.
# OpenTofu's mock_provider has no `source`: the defaults of mocks/ are
# written inside it. OpenTofu also refuses a default for an argument the
# configuration sets ("overriding configuration values is not allowed"), so
# the arguments main.tf sets are left out: the connector's streams, the
# trigger's force_full_refresh and triggers, and the job data source's id.
# Only the blocks of the types main.tf uses are here.
mock_provider "dataintegration" {
  mock_resource "dataintegration_customer_service_connector" {
    defaults = {
      id             = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
      connector_name = "customer_service"
      created_at     = "2026-01-01T00:00:00.000Z"
      updated_at     = "2026-01-01T00:00:00.000Z"
      workspace_id   = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
    }
  }

  mock_resource "dataintegration_job_trigger" {
    defaults = {
      id                = "4d6f7a3b-2c1e-4f5a-8b9c-0d1e2f3a4b5c"
      triggered_at      = "2026-01-01T00:00:00Z"
      workspace_id      = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
      job_id            = "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"
      if_running        = "fail"
      cancel_on_destroy = false
    }
  }

  mock_data "dataintegration_job" {
    defaults = {
      connector_name = "customer_service"
      data_source    = "Support desk"
      schema_name    = "support_desk"
      is_active      = true
      created_at     = "2026-01-01T00:00:00.000Z"
      updated_at     = "2026-01-01T00:00:00.000Z"
      workspace_id   = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
      name           = "Support desk"
    }
  }
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

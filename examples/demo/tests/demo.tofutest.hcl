# demo.tftest.hcl for OpenTofu, which reads this file instead of that one:
# the defaults of examples/testing/mocks written inside mock_provider, less
# the arguments main.tf sets (the connector's streams, the trigger's
# force_full_refresh, cancel_on_destroy and triggers, the job data source's
# id), which OpenTofu refuses to mock.
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
      id           = "4d6f7a3b-2c1e-4f5a-8b9c-0d1e2f3a4b5c"
      triggered_at = "2026-01-01T00:00:00Z"
      workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
      job_id       = "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"
      if_running   = "fail"
    }
  }

  mock_data "dataintegration_job" {
    defaults = {
      data_source    = "Support desk"
      connector_name = "customer_service"
      schema_name    = "support_desk"
      is_active      = true
      created_at     = "2026-01-01T00:00:00.000Z"
      updated_at     = "2026-01-01T00:00:00.000Z"
      workspace_id   = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
      name           = "Support desk"
    }
  }
}
run "plan" {
  command = plan

  assert {
    condition     = dataintegration_job_trigger.support_sync.job_name == "Support desk"
    error_message = "The trigger does not run the connector's job."
  }
}

run "apply" {
  command = apply

  assert {
    condition     = output.connector_job.id == output.triggered_job_id
    error_message = "The job read back is not the one the trigger ran."
  }
  assert {
    condition     = can(regex("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", output.triggered_job_id))
    error_message = "The triggered job's ID is not a UUID."
  }
  assert {
    condition     = can(formatdate("YYYY", output.triggered_at))
    error_message = "triggered_at is not an RFC 3339 time."
  }
}

# The demo's configuration, tested offline with the mock defaults the
# provider publishes (examples/testing/mocks): `terraform test` in this
# folder. OpenTofu reads demo.tofutest.hcl instead of this file.
mock_provider "dataintegration" {
  source = "../testing/mocks"
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

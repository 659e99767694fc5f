# Against the sandbox (or the service): the provider reads
# DATAINTEGRATION_BASE_URL, DATAINTEGRATION_API_KEY and
# DATAINTEGRATION_WORKSPACE_ID, which the sandbox prints when it starts.
# `terraform test` destroys what the runs created when the file ends.

variables {
  name        = "Testing desk"
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = "not-a-real-token"
}

run "apply" {
  assert {
    condition     = data.dataintegration_job.this.name == var.name
    error_message = "The first sync ran another job than the connector's."
  }
  assert {
    condition     = output.job_id == dataintegration_job_trigger.first_sync.job_id
    error_message = "The job read back is not the one the first sync ran."
  }
  assert {
    condition     = length(dataintegration_customer_service_connector.this.streams) == 15
    error_message = "A connector without streams does not load all 15."
  }
}

# Fewer streams are a change in place: the connector, its job and the
# first sync stay.
run "fewer_streams" {
  variables {
    streams = ["tickets", "chats"]
    # The connector and job of the run before, to compare with.
    connector_before = run.apply.connector_id
    job_before       = run.apply.job_id
  }

  assert {
    condition     = output.connector_id == var.connector_before
    error_message = "Changing the streams replaced the connector."
  }
  assert {
    condition     = output.job_id == var.job_before
    error_message = "Changing the streams gave the connector another job."
  }
}

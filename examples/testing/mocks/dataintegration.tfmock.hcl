# Mock defaults for the dataintegration provider, for `terraform test`
# (Terraform 1.7 or later):
#
#   mock_provider "dataintegration" {
#     source = "./mocks"   # this folder, relative to the module under test
#   }
#
# A mocked provider sends no request. Every attribute the provider or the
# service computes gets the value below when the configuration does not set
# it: IDs are UUIDs and times are in the service's format, so that the
# values pass the provider's checks where one resource's attribute feeds
# another's argument (a trigger's job_id into the job data source's id), and
# the arguments the provider defaults get the provider's defaults.
#
# OpenTofu has no `source`: write the blocks inside mock_provider instead.
# It also refuses a default for an argument the configuration sets
# ("overriding configuration values is not allowed"): there, leave out the
# lines after "Arguments" that name an argument your configuration sets.

mock_resource "dataintegration_customer_service_connector" {
  defaults = {
    id             = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
    connector_name = "customer_service"
    created_at     = "2026-01-01T00:00:00.000Z"
    updated_at     = "2026-01-01T00:00:00.000Z"
    # Arguments, used when the configuration leaves them out.
    workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
    streams      = ["chats", "messages", "events", "contacts", "tickets", "ticket_interactions", "ticket_tags", "ticket_groups", "ticket_forms", "ticket_priorities", "ticket_types", "ticket_channels", "ticket_status", "organizations", "survey_submissions"]
  }
}

mock_resource "dataintegration_job_trigger" {
  defaults = {
    id           = "4d6f7a3b-2c1e-4f5a-8b9c-0d1e2f3a4b5c"
    triggered_at = "2026-01-01T00:00:00Z"
    # Arguments, used when the configuration leaves them out.
    workspace_id       = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
    job_id             = "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"
    force_full_refresh = false
    if_running         = "fail"
    cancel_on_destroy  = false
    triggers           = {}
  }
}

mock_data "dataintegration_customer_service_connector" {
  defaults = {
    url            = "https://acme.example-helpdesk.com"
    agent_email    = "agent@acme.com"
    streams        = ["chats", "messages", "events", "contacts", "tickets", "ticket_interactions", "ticket_tags", "ticket_groups", "ticket_forms", "ticket_priorities", "ticket_types", "ticket_channels", "ticket_status", "organizations", "survey_submissions"]
    connector_name = "customer_service"
    created_at     = "2026-01-01T00:00:00.000Z"
    updated_at     = "2026-01-01T00:00:00.000Z"
    # Arguments, used when the configuration leaves them out.
    workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
    id           = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
    name         = "Support desk"
  }
}

mock_data "dataintegration_customer_service_connectors" {
  defaults = {
    # Terraform mocks no element of a list of objects: it takes an object as
    # what each element holds, and gives an empty list. OpenTofu takes the
    # list: write [{ ... }] there.
    connectors = {
      id             = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
      workspace_id   = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
      name           = "Support desk"
      url            = "https://acme.example-helpdesk.com"
      agent_email    = "agent@acme.com"
      streams        = ["chats", "messages", "events", "contacts", "tickets", "ticket_interactions", "ticket_tags", "ticket_groups", "ticket_forms", "ticket_priorities", "ticket_types", "ticket_channels", "ticket_status", "organizations", "survey_submissions"]
      connector_name = "customer_service"
      created_at     = "2026-01-01T00:00:00.000Z"
      updated_at     = "2026-01-01T00:00:00.000Z"
    }
    # Arguments, used when the configuration leaves them out.
    workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
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
    # Arguments, used when the configuration leaves them out.
    workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
    id           = "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"
    name         = "Support desk"
  }
}

mock_data "dataintegration_jobs" {
  defaults = {
    # One job's ID, so that ids[0] names a job.
    ids = ["2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"]
    # Terraform mocks no element of a list of objects (its issue 38369): it
    # takes an object as what each element holds, and gives an empty list.
    # OpenTofu takes the list: write [{ ... }] there.
    jobs = {
      id             = "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"
      name           = "Support desk"
      data_source    = "Support desk"
      connector_name = "customer_service"
      schema_name    = "support_desk"
      is_active      = true
      created_at     = "2026-01-01T00:00:00.000Z"
      updated_at     = "2026-01-01T00:00:00.000Z"
    }
    # Arguments, used when the configuration leaves them out.
    workspace_id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
  }
}

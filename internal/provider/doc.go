// Package provider is the Terraform side of the provider; it reaches the
// service only through internal/client. Where things are:
//   - provider.go: the schema and the reading of every setting, or of the
//     environment variable it falls back to (the getenv it is handed);
//     proxy_secrets.go: the proxy credentials the logs mask; user_agent.go: the User-Agent's engine;
//     provider_data.go: what Configure hands on.
//   - one file per resource, data source and action: connector_resource.go,
//     connector_list_resource.go, job_trigger_resource.go (and
//     job_trigger_state_upgrader.go), connector_data_source.go,
//     connectors_data_source.go, job_data_source.go, jobs_data_source.go,
//     run_job_action.go, cancel_job_action.go; job_actions.go: what the two
//     actions share; data_sources.go: what the data sources share.
//   - connector_model.go, job_model.go: a connector and a job as shown;
//     workspace.go: workspace_id; job_run.go: a run of a job (trigger, wait,
//     lost answers); connector_adopt.go: the adoption of a lost create.
//   - connector_lookup.go, job_lookup.go: the lookups; job_index.go: the
//     shared walks; name_checks.go: the checks of a name around a create;
//     plan_holds.go: what the instances of one plan hold.
//   - validators.go, same_duration_plan_modifier.go,
//     triggers_plan_modifier.go: the attribute checks and plan modifiers.
//   - diagnostics.go: the diagnostics several files build; network.go: those
//     of a request that never reached the service.
//   - server.go: the protocol server; jobs_fast_path.go: its fast path for
//     the jobs data source.
package provider

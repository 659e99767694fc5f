# Every active job loading into the analytics schema.
data "dataintegration_jobs" "analytics" {
  schema_name = "analytics"
  is_active   = true
  ordering    = "name"
}

output "analytics_job_names" {
  value = data.dataintegration_jobs.analytics.jobs[*].name
}

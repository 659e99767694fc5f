#!/usr/bin/env bash
# One pipeline step: the CI system provides DATAINTEGRATION_BASE_URL,
# DATAINTEGRATION_API_KEY and DATAINTEGRATION_WORKSPACE_ID as secrets, and
# keeps the Terraform state in a backend between runs.
set -euo pipefail

terraform init -input=false
terraform apply -input=false -auto-approve \
  -var "job_name=${JOB_NAME}" \
  -var "commit=${GIT_COMMIT}" \
  -var "full_refresh=${FULL_REFRESH:-false}"

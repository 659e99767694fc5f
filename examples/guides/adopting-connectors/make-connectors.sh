#!/usr/bin/env bash
# Three connectors made outside Terraform. Needs DATAINTEGRATION_BASE_URL,
# DATAINTEGRATION_API_KEY and DATAINTEGRATION_WORKSPACE_ID.
set -euo pipefail

for desk in "Support EU" "Support US" "Support APAC"; do
  curl -fsS -X POST \
    -H "Authorization: $DATAINTEGRATION_API_KEY" \
    -H "Content-Type: application/json" \
    -d "{\"name\": \"$desk\", \"connector_name\": \"customer_service\",
         \"configuration\": {\"url\": \"https://acme.example-helpdesk.com\",
                           \"token\": \"made-by-hand\", \"agent_email\": \"agent@acme.com\"},
         \"streams\": [\"tickets\", \"chats\"]}" \
    "$DATAINTEGRATION_BASE_URL/developers/workspaces/$DATAINTEGRATION_WORKSPACE_ID/connectors/"
done

#!/usr/bin/env bash
# make demo: build the provider, start the sandbox on a free loopback port,
# apply examples/demo with a dev override, show the outputs, and stop the
# sandbox, even when a step fails. Nothing is written outside a temporary
# folder: not the repository, not ~/.terraformrc.
# Usage: demo.sh TERRAFORM_BINARY
set -euo pipefail
terraform=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dataintegration-demo.XXXXXX")
sandbox_pid=

cleanup() {
	if [ -n "$sandbox_pid" ]; then
		echo "==> Stopping the sandbox"
		kill -TERM "$sandbox_pid" 2>/dev/null || true
		wait "$sandbox_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "==> Building the provider and the sandbox"
go build -o "$work/bin/terraform-provider-dataintegration" "$root"
go build -o "$work/sandbox" "$root/internal/cmd/sandbox"

echo "==> Starting the sandbox"
"$work/sandbox" -addr 127.0.0.1:0 >"$work/sandbox.env" 2>"$work/sandbox.log" &
sandbox_pid=$!
for _ in $(seq 100); do
	grep -q DATAINTEGRATION_WORKSPACE_ID "$work/sandbox.env" 2>/dev/null && break
	kill -0 "$sandbox_pid" 2>/dev/null || break
	sleep 0.1
done
if ! grep -q DATAINTEGRATION_WORKSPACE_ID "$work/sandbox.env"; then
	echo "demo: the sandbox did not start:" >&2
	cat "$work/sandbox.log" >&2
	exit 1
fi
# shellcheck disable=SC1091
source "$work/sandbox.env"
echo "    sandbox at $DATAINTEGRATION_BASE_URL, workspace $DATAINTEGRATION_WORKSPACE_ID"

cat >"$work/cli-config.tfrc" <<CONFIG
provider_installation {
  dev_overrides {
    "dataintegration/dataintegration" = "$work/bin"
  }
  direct {}
}
CONFIG
export TF_CLI_CONFIG_FILE="$work/cli-config.tfrc"
export CHECKPOINT_DISABLE=1

mkdir -p "$work/demo"
cp -R "$root/examples/demo/." "$work/demo/"
cd "$work/demo"

# No `terraform init`: the dev override serves the only provider, as the
# getting-started guide says.
echo "==> terraform apply"
"$terraform" apply -auto-approve -input=false
echo "==> The connector"
"$terraform" output connector_id
echo "==> The job the service created for it"
"$terraform" output connector_job
echo "==> When the provider got the service's acceptance of the trigger (this machine's clock, whole seconds)"
"$terraform" output triggered_at
job=$("$terraform" output -raw triggered_job_id)
echo "==> The execution it started, as the sandbox's side door shows it (outside Terraform)"
curl -fsS -H "Authorization: $DATAINTEGRATION_API_KEY" \
	"${DATAINTEGRATION_BASE_URL%/}/_sandbox/workspaces/$DATAINTEGRATION_WORKSPACE_ID/jobs/$job/executions/"
echo

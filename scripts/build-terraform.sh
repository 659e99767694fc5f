#!/usr/bin/env bash
# Builds a Terraform CLI from the source the Go module proxy serves.
# Usage: build-terraform.sh VERSION OUTPUT
#
# In a writable copy of the module, the nine remote-state backends (azure,
# consul, cos, gcs, kubernetes, oci, oss, pg, s3) are taken out of
# internal/backend/init/init.go; the local, http, inmem, remote and cloud
# backends remain, which is all the provider's tests use, and the build is a
# third smaller. From 1.9 on, Terraform's go.mod also replaces the nested
# modules of those backends and of internal/legacy with local folders that
# the module zip does not hold, and the proxy refuses those nested modules, so
# their require and replace lines are dropped with `go mod edit` (only a test
# file imports internal/legacy). No `go mod tidy` is needed. -s -w drops the
# symbol tables, which nobody reads, for a shorter link. version.dev=no makes
# `terraform version` print a release ("1.16.4"), not "1.16.4-dev", so
# version checks see a release; versions without that variable ignore it.
#
# Terraform 1.6 and later are under the Business Source License; building it
# to run this provider's tests is a use that licence allows.
set -euo pipefail
version=$1
out=$(realpath -m "$2")

. "$(dirname "$0")/module-source.sh"
module_source "github.com/hashicorp/terraform@v${version}"
cd "$src"

module=github.com/hashicorp/terraform
removed=(azure consul cos gcs kubernetes oci oss pg s3)
drop_backends "$module" "${removed[@]}"
if grep -q "remote-state/s3 =>" go.mod; then
	for b in "${removed[@]}"; do
		go mod edit -droprequire "$module/internal/backend/remote-state/${b}" \
			-dropreplace "$module/internal/backend/remote-state/${b}"
	done
	go mod edit -droprequire "$module/internal/legacy" -dropreplace "$module/internal/legacy"
fi

mkdir -p "$(dirname "$out")"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X 'github.com/hashicorp/terraform/version.dev=no'" -o "$out.tmp" .
mv "$out.tmp" "$out"
"$out" version

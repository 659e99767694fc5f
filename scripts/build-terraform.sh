#!/usr/bin/env bash
# Builds a Terraform CLI from the source the Go module proxy serves.
# Usage: build-terraform.sh VERSION OUTPUT
#
# Up to 1.8, `go install github.com/hashicorp/terraform@vX` works. From 1.9
# on, Terraform's go.mod replaces the nested modules of nine remote-state
# backends (azure, consul, cos, gcs, kubernetes, oci, oss, pg, s3) and of
# internal/legacy with local folders that the module zip does not hold, and
# the proxy refuses those nested modules. So, in a writable copy of the
# module:
#   - the nine backends are taken out of internal/backend/init/init.go (their
#     imports and their entries in the backend table); the local, http,
#     inmem, remote and cloud backends remain, which is all the provider's
#     tests use;
#   - their require and replace lines, and those of internal/legacy (only a
#     test file imports it), are dropped with `go mod edit`.
# No `go mod tidy` is needed. -s -w drops the symbol tables, which nobody
# reads, for a shorter link. version.dev=no makes `terraform version` print
# a release ("1.16.4"), not "1.16.4-dev", so version checks see a release.
#
# Terraform 1.6 and later are under the Business Source License; building it
# to run this provider's tests is a use that licence allows.
set -euo pipefail
version=$1
out=$(realpath -m "$2")

. "$(dirname "$0")/module-source.sh"
module_source "github.com/hashicorp/terraform@v${version}"
cd "$src"

if grep -q "remote-state/s3 =>" go.mod; then
	removed=(azure consul cos gcs kubernetes oci oss pg s3)
	init=internal/backend/init/init.go
	for b in "${removed[@]}"; do
		# The import line, whatever its alias.
		sed -i "\#\"github.com/hashicorp/terraform/internal/backend/remote-state/${b}\"#d" "$init"
		go mod edit -droprequire "github.com/hashicorp/terraform/internal/backend/remote-state/${b}" \
			-dropreplace "github.com/hashicorp/terraform/internal/backend/remote-state/${b}"
	done
	# The backend table's entries: `"name": func() backend.Backend { return backendX.New() },`
	sed -i -E '/^[[:space:]]*"(azurerm|consul|cos|gcs|kubernetes|oss|pg|s3|oci)":[[:space:]]+func\(\)/d' "$init"
	go mod edit -droprequire github.com/hashicorp/terraform/internal/legacy \
		-dropreplace github.com/hashicorp/terraform/internal/legacy
fi

mkdir -p "$(dirname "$out")"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X 'github.com/hashicorp/terraform/version.dev=no'" -o "$out.tmp" .
mv "$out.tmp" "$out"
"$out" version

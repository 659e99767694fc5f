#!/usr/bin/env bash
# Builds the OpenTofu CLI from the source the Go module proxy serves: copy
# the module out of the read-only module cache, take seven remote-state
# backends out of it (as build-terraform.sh says why; azurerm stays, as the
# azure_vault key provider imports it), then build ./cmd/tofu.
# Usage: build-tofu.sh VERSION OUTPUT
set -euo pipefail
version=$1
out=$(realpath -m "$2")

. "$(dirname "$0")/module-source.sh"
module_source "github.com/opentofu/opentofu@v${version}"
drop_backends github.com/opentofu/opentofu consul cos gcs kubernetes oss pg s3
mkdir -p "$(dirname "$out")"
# version.dev=no: report "1.12.6", not "1.12.6-dev", so version checks see a
# release; -s -w: no symbol tables, which nobody reads, and a shorter link.
(cd "$src" && go build -trimpath -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "$out.tmp" ./cmd/tofu)
mv "$out.tmp" "$out"
"$out" version

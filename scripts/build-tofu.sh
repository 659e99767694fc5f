#!/usr/bin/env bash
# Builds the OpenTofu CLI from the source the Go module proxy serves: copy
# the module out of the read-only module cache, take the eight remote-state
# backends and the four cloud key providers of state encryption out of it
# (the tests use neither, and their SDKs are a third of the build; see
# build-terraform.sh), then build ./cmd/tofu.
# Usage: build-tofu.sh VERSION OUTPUT
set -euo pipefail
version=$1
out=$(realpath -m "$2")

. "$(dirname "$0")/module-source.sh"
module_source "github.com/opentofu/opentofu@v${version}"
drop_backends github.com/opentofu/opentofu azure consul cos gcs kubernetes oss pg s3
# Each key provider is an import and a three-line registration.
registry=$src/internal/encryption/default_registry.go
for k in aws_kms azure_vault gcp_kms openbao; do
	sed -i -e "\#\"github.com/opentofu/opentofu/internal/encryption/keyprovider/${k}\"#d" \
		-e "/RegisterKeyProvider(${k}\.New())/,+2d" "$registry"
done
mkdir -p "$(dirname "$out")"
# version.dev=no: report "1.12.6", not "1.12.6-dev", so version checks see a
# release; -s -w: no symbol tables, which nobody reads, and a shorter link.
(cd "$src" && go build -trimpath -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "$out.tmp" ./cmd/tofu)
mv "$out.tmp" "$out"
"$out" version

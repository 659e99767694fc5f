#!/usr/bin/env bash
# Builds the OpenTofu CLI from the source the Go module proxy serves: copy
# the module out of the read-only module cache, then build ./cmd/tofu.
# Usage: build-tofu.sh VERSION OUTPUT
set -euo pipefail
version=$1
out=$2

dir=$(cd / && go mod download -json "github.com/opentofu/opentofu@v${version}" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	echo "build-tofu: could not download github.com/opentofu/opentofu@v${version}" >&2
	exit 1
fi

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -R "$dir" "$work/src"
chmod -R u+w "$work/src"
mkdir -p "$(dirname "$out")"
# version.dev=no: report "1.12.6", not "1.12.6-dev", so version checks see a release.
(cd "$work/src" && go build -trimpath -ldflags "-X github.com/opentofu/opentofu/version.dev=no" -o "$out.tmp" ./cmd/tofu)
mv "$out.tmp" "$out"
"$out" version

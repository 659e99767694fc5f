#!/usr/bin/env bash
# make docs-check: fail, naming the files, when docs/ differs from what
# `make docs` would render, and when tfplugindocs finds a page the Registry
# would refuse. Renders into a temporary folder: the tree is left alone.
# Usage: docs-check.sh (with the Terraform CLI on PATH)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$(mktemp -d "${TMPDIR:-/tmp}/dataintegration-docs.XXXXXX")
trap 'rm -rf "$out"' EXIT

# tfplugindocs writes under the provider folder: point it at ours by a
# relative path.
rel=$(realpath --relative-to="$root" "$out")
if ! go tool tfplugindocs generate --provider-name dataintegration --rendered-website-dir "$rel/docs" >"$out/generate.log" 2>&1; then
	cat "$out/generate.log" >&2
	exit 1
fi
if ! diff -r docs "$out/docs" >"$out/diff" 2>&1; then
	echo "docs/ is out of date: run \`make docs\` and commit the result. These files differ from what it renders (shown as rendered/):" >&2
	diff -rq docs "$out/docs" | sed -e "s|$out/docs|rendered|g" -e 's/^/  /' >&2 || true
	echo >&2
	sed -e "s|$out/docs|rendered|g" "$out/diff" | head -60 >&2
	exit 1
fi
missing=0
for page in docs/index.md docs/resources/*.md docs/data-sources/*.md docs/list-resources/*.md docs/actions/*.md; do
	for heading in '## Example Usage' '## Schema'; do
		if ! grep -q "^$heading" "$page"; then
			echo "$page has no \"$heading\" section: add its example under examples/, or its schema to the template" >&2
			missing=1
		fi
	done
done
[ "$missing" = 0 ] || exit 1
if ! go tool tfplugindocs validate --provider-name dataintegration >"$out/validate.log" 2>&1; then
	grep -v '\[DEBUG\]' "$out/validate.log" >&2
	exit 1
fi
echo "docs/ is up to date and valid."

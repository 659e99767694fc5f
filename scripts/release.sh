#!/usr/bin/env bash
# Builds the release that the newest version heading of CHANGELOG.md names,
# with goreleaser, into dist/, signs it, and checks it as the Registry and
# `terraform init` will: after it, dist/ holds exactly
#
#   terraform-provider-dataintegration_<version>_<os>_<arch>.zip   (each holding terraform-provider-dataintegration_v<version>[.exe] and LICENSE)
#   terraform-provider-dataintegration_<version>_manifest.json     (protocol 6.0)
#   terraform-provider-dataintegration_<version>_SHA256SUMS         (the zips and the manifest, no more, no less)
#   terraform-provider-dataintegration_<version>_SHA256SUMS.sig     (a detached GPG signature of it)
#   terraform-provider-dataintegration_<version>_signing-key.asc    (the armoured public key that signed)
#   dataintegration-sandbox_<version>_<os>_<arch>.tar.gz (.zip on Windows) (the sandbox command and LICENSE,
#                                                                   for the guide "Testing configurations"; not in SHA256SUMS)
#
# With GPG_FINGERPRINT set, the key of that fingerprint in the caller's
# keyring signs (release.yml). Without it, a throwaway key made in a
# temporary GNUPGHOME does, so that signing runs on every check.
#
# Usage: release.sh <goreleaser> [--single-target]
#   --single-target builds for this machine's platform only (make test);
#   otherwise for every platform .goreleaser.yml names (make release-check).
set -euo pipefail
goreleaser=$1
single=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

project=terraform-provider-dataintegration
version=$(sed -n 's/^## \[\([0-9][0-9.]*[^]]*\)\] - [0-9].*/\1/p' CHANGELOG.md | head -n 1)
if [[ -z $version ]]; then
	echo "release: CHANGELOG.md has no released version (a heading \"## [X.Y.Z] - YYYY-MM-DD\")" >&2
	exit 1
fi
prefix=${project}_${version}
sandbox=dataintegration-sandbox
sandbox_prefix=${sandbox}_${version}
work=$(mktemp -d "${TMPDIR:-/tmp}/dataintegration-release.XXXXXX")
trap 'gpgconf --homedir "$work/gnupg" --kill all >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

if [[ -z ${GPG_FINGERPRINT:-} ]]; then
	export GNUPGHOME=$work/gnupg
	mkdir -m 700 "$GNUPGHOME"
	gpg --batch --quiet --passphrase '' --quick-gen-key "terraform-provider-dataintegration release check (throwaway) <release-check@invalid>" rsa4096 sign 1d
	GPG_FINGERPRINT=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
	export GPG_FINGERPRINT
	echo "==> Signing with a throwaway key, $GPG_FINGERPRINT"
fi

config=.goreleaser.yml
if [[ $single == --single-target ]]; then
	# goreleaser's --single-target exists for `build` only: the same
	# configuration, with this platform alone, goes through the whole release.
	goos=$(go env GOOS) goarch=$(go env GOARCH)
	config=$work/goreleaser-single.yml
	sed -e "s/^    goos: .*/    goos: [$goos]/" -e "s/^    goarch: .*/    goarch: [$goarch]/" .goreleaser.yml >"$config"
	# Two builds, the provider's and the sandbox's, each with a goos and a
	# goarch line.
	if [[ $(grep -c -e "^    goos: \[$goos\]$" -e "^    goarch: \[$goarch\]$" "$config") != 4 ]]; then
		echo "release: .goreleaser.yml no longer has the two builds' goos and goarch lines this script narrows to one platform" >&2
		exit 1
	fi
fi

echo "==> Building $project $version with $($goreleaser --version 2>/dev/null | awk '/^GitVersion:/ { print $2 }')"
RELEASE_VERSION=$version "$goreleaser" release --snapshot --clean --config "$config"

# The manifest goes out beside the zips (release.extra_files), and SHA256SUMS
# lists it (checksum.extra_files), but goreleaser leaves it out of dist/.
cp terraform-registry-manifest.json "dist/${prefix}_manifest.json"
gpg --batch --armor --export "$GPG_FINGERPRINT" >"dist/${prefix}_signing-key.asc"
# What is left is goreleaser's own work: the unpacked binaries and its
# records of the run. The Registry reads none of it.
find dist -mindepth 1 -maxdepth 1 ! -name "${prefix}_*" ! -name "${sandbox_prefix}_*" -exec rm -rf {} +

echo "==> Checking dist/"
cd dist
fail() {
	echo "release: $*" >&2
	exit 1
}
sums=${prefix}_SHA256SUMS
sha256sum --check --strict --quiet "$sums" || fail "$sums does not match the files beside it"
listed=$(awk '{ print $2 }' "$sums" | sort)
present=$(find . -maxdepth 1 -type f \( -name "${prefix}_*.zip" -o -name '*_manifest.json' \) -printf '%f\n' | sort)
[[ $listed == "$present" ]] || fail "$sums lists $(echo $listed), but dist/ holds $(echo $present)"

# The signature, checked with nothing but the exported key.
verify=$work/verify
mkdir -m 700 "$verify"
gpg --homedir "$verify" --batch --quiet --import "${prefix}_signing-key.asc"
gpg --homedir "$verify" --batch --quiet --verify "$sums.sig" "$sums" 2>/dev/null || fail "$sums.sig is not a signature of $sums by ${prefix}_signing-key.asc"

# The names the Registry and `terraform init` look for.
for zip in "${prefix}"_*.zip; do
	[[ $zip =~ ^${prefix}_([a-z0-9]+)_([a-z0-9]+)\.zip$ ]] || fail "$zip is not named ${prefix}_<os>_<arch>.zip"
	want=${project}_v${version}
	[[ ${BASH_REMATCH[1]} == windows ]] && want=$want.exe
	inside=$(unzip -Z1 "$zip" | sort | tr '\n' ' ')
	[[ $inside == "LICENSE $want " ]] || fail "$zip holds $inside, want $want and LICENSE"
done
# The platforms .goreleaser.yml names for its build number $1 (1, the
# provider; 2, the sandbox): every pair of its goos and goarch that Go can
# build, less the provider's ignores.
platforms() {
	if [[ $single == --single-target ]]; then
		echo "$(go env GOOS)_$(go env GOARCH)"
		return
	fi
	list() { sed -n "s/^    $1: \[\(.*\)\]$/\1/p" ../.goreleaser.yml | sed -n "${2}p" | tr -d ' "' | tr ',' '\n'; }
	local ignored='' buildable
	[[ $1 == 1 ]] && ignored=$(awk '/^      - goos: / { os = $3 } /^        goarch: / { gsub(/"/, "", $2); print os "_" $2 }' ../.goreleaser.yml)
	buildable=$(go tool dist list | tr / _)
	for os in $(list goos "$1"); do for arch in $(list goarch "$1"); do
		if grep -qx "${os}_$arch" <<<"$buildable" && ! grep -qx "${os}_$arch" <<<"$ignored"; then echo "${os}_$arch"; fi
	done; done | sort | xargs
}
want=$(platforms 1)
built=$(ls -- "${prefix}"_*.zip | sed "s/^${prefix}_\(.*\)\.zip$/\1/" | sort | xargs)
[[ $built == "$want" ]] || fail "dist/ holds zips for $built; .goreleaser.yml names $want"

# The sandbox's archives: one for each of its platforms, each holding the
# command and the licence.
want=$(platforms 2)
built=$(ls -- "${sandbox_prefix}"_* | sed -E "s/^${sandbox_prefix}_(.*)\.(tar\.gz|zip)$/\1/" | sort | xargs)
[[ $built == "$want" ]] || fail "dist/ holds sandbox archives for $built; .goreleaser.yml names $want"
for archive in "${sandbox_prefix}"_*; do
	case $archive in
	*_windows_*.zip) inside=$(unzip -Z1 "$archive" | sort | tr '\n' ' ') want="$sandbox.exe" ;;
	*.tar.gz) inside=$(tar -tzf "$archive" | sort | tr '\n' ' ') want=$sandbox ;;
	*) fail "$archive is not a .tar.gz (or, for Windows, a .zip)" ;;
	esac
	[[ $inside == "LICENSE $want " ]] || fail "$archive holds $inside, want $want and LICENSE"
done
protocols=$(tr -d ' \n' <"${prefix}_manifest.json")
[[ $protocols == *'"protocol_versions":["6.0"]'* ]] || fail "${prefix}_manifest.json does not declare protocol 6.0"

echo "==> dist/ holds the release of $version, signed by $GPG_FINGERPRINT:"
ls -l --time-style=+ . | awk 'NR > 1 { printf "  %10s  %s\n", $5, $NF }'

# Sourced by the engine builds. module_source MODULE@VERSION copies the
# module's source, as the Go module proxy serves it, out of the read-only
# module cache into a writable temporary folder, and sets src to it; the
# folder is removed when the script exits.
module_source() {
	local dir
	dir=$(cd / && go mod download -json "$1" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
	if [ -z "$dir" ] || [ ! -d "$dir" ]; then
		echo "$(basename "$0"): could not download $1" >&2
		exit 1
	fi
	work=$(mktemp -d)
	trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
	cp -R "$dir" "$work/src"
	chmod -R u+w "$work/src"
	src=$work/src
}

# drop_backends MODULE NAME... takes the remote-state backends NAME out of
# the engine's backend table in $src (their imports and their entries; the
# table calls azure "azurerm"). The provider's tests use the local backend
# alone, and these backends bring in the cloud SDKs (Kubernetes, AWS, Google,
# Alibaba, Tencent) that are most of an engine's build.
drop_backends() {
	local module=$1 init=$src/internal/backend/init/init.go b key keys=()
	shift
	for b in "$@"; do
		sed -i "\#\"${module}/internal/backend/remote-state/${b}\"#d" "$init"
		key=$b
		[ "$b" = azure ] && key=azurerm
		keys+=("$key")
	done
	local IFS='|'
	sed -i -E "/^[[:space:]]*\"(${keys[*]})\":[[:space:]]+func\(/d" "$init"
}

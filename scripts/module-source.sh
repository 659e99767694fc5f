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

#!/usr/bin/env bash
# make test and make testacc: run phases side by side, each with its output
# in a log of its own, printed whole in the order given as each ends (so
# that the outputs do not interleave), then the wall time of each; fail when
# any failed, once all have ended. With PHASES_SUMMARY naming a file, the
# times are added to it too, for make test's summary of every phase.
# Usage: phases.sh NAME COMMAND [NAME COMMAND]...
set -uo pipefail
logs=$(mktemp -d "${TMPDIR:-/tmp}/dataintegration-phases.XXXXXX")
names=() pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$logs"' EXIT
while (($# >= 2)); do
	name=$1 cmd=$2
	shift 2
	names+=("$name")
	(
		start=$(date +%s)
		bash -o pipefail -ec "$cmd" >"$logs/$name.log" 2>&1
		rc=$?
		echo "$rc $(($(date +%s) - start))" >"$logs/$name.rc"
		exit "$rc"
	) &
	pids+=($!)
	echo "==> $name started: $cmd"
done

duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

failed=() summary=()
for i in "${!names[@]}"; do
	name=${names[$i]}
	wait "${pids[$i]}"
	read -r rc secs <"$logs/$name.rc"
	echo "==> $name"
	cat "$logs/$name.log"
	status=ok
	if [[ $rc != 0 ]]; then
		status="FAILED (exit $rc)"
		failed+=("$name")
	fi
	echo "<== $name: $status in $(duration "$secs")"
	summary+=("$(printf '  %-26s %8s  %s' "$name" "$(duration "$secs")" "$status")")
done
pids=()
echo "==> Wall time of each phase (side by side):"
printf '%s\n' "${summary[@]}"
if [[ -n ${PHASES_SUMMARY:-} ]]; then
	printf '%s\n' "${summary[@]}" >>"$PHASES_SUMMARY"
fi
if ((${#failed[@]})); then
	echo "==> Failed: ${failed[*]}" >&2
	exit 1
fi

#!/usr/bin/env bash
# make test-stress: runs the tests of the packages that spawn processes
# while the machine is busy, as a shared CI machine is: stress-ng keeps
# every core busy (STRESS_CPU workers, default one per core) beside the
# tests. A test that passes only on an idle machine fails here.
#
# Usage: scripts/stress.sh [package...]   (default: the packages below)
# The load is bounded in time (STRESS_BOUND, default 45m) and stopped when
# the script exits, however it exits.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(./sandbox/ ./session/... ./cmd/core/ ./bot/)
fi
cpu=${STRESS_CPU:-$(nproc)}
bound=${STRESS_BOUND:-45m}
timeout=${STRESS_TEST_TIMEOUT:-30m}

load_pids=()
stop_load() {
	for pid in "${load_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${load_pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
trap stop_load EXIT
trap 'exit 130' INT TERM

if command -v stress-ng >/dev/null; then
	echo "test-stress: stress-ng --cpu $cpu for at most $bound beside: ${pkgs[*]}" >&2
	stress-ng --cpu "$cpu" --timeout "$bound" --quiet &
	load_pids+=($!)
else
	# The same load without stress-ng: one busy shell per core, each
	# ended by the trap or, at the latest, by timeout.
	echo "test-stress: stress-ng is missing (apt-get install stress-ng); $cpu busy shells for at most $bound beside: ${pkgs[*]}" >&2
	for _ in $(seq "$cpu"); do
		timeout "$bound" sh -c 'while :; do :; done' &
		load_pids+=($!)
	done
fi
start=$(date +%s)
status=0
$GO test -race -count=1 -timeout "$timeout" "${pkgs[@]}" || status=$?
echo "test-stress: the tests took $(($(date +%s) - start))s under load (exit $status)" >&2
exit "$status"

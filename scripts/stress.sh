#!/usr/bin/env bash
# make test-stress: runs the tests of the packages that spawn processes
# while the machine is busy, as a shared CI machine is: stress-ng keeps
# every core busy (STRESS_CPU workers, default one per core) beside the
# tests. A test that passes only on an idle machine fails here.
#
# Usage: scripts/stress.sh [package...]   (default: the packages below)
#        scripts/stress.sh -- command [arg...]   (any command beside the load,
#                                                 e.g. -- make test, as .ci/run does)
# The load is bounded in time (STRESS_BOUND, default 45m) and stopped when
# the script exits, however it exits.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(./sandbox/ ./session/... ./cmd/core/ ./bot/)
fi
cmd=()
if [ "${pkgs[0]}" = "--" ]; then
	cmd=("${pkgs[@]:1}")
	[ ${#cmd[@]} -gt 0 ] || { echo "usage: scripts/stress.sh -- command [arg...]" >&2; exit 2; }
	pkgs=("${cmd[@]}")
fi
cpu=${STRESS_CPU:-$(nproc)}
bound=${STRESS_BOUND:-45m}
timeout=${STRESS_TEST_TIMEOUT:-30m}

# Job control: each background job is a process group of its own, so that
# stopping one stops every process it started (go test's test binaries,
# stress-ng's workers).
set -m
pids=()
stop() {
	for pid in "${pids[@]}"; do
		kill -- "-$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
trap stop EXIT
trap 'exit 130' INT TERM

if command -v stress-ng >/dev/null; then
	echo "test-stress: stress-ng --cpu $cpu for at most $bound beside: ${pkgs[*]}" >&2
	stress-ng --cpu "$cpu" --timeout "$bound" --quiet &
	pids+=($!)
else
	# The same load without stress-ng: one busy shell per core, each
	# ended by the trap or, at the latest, by timeout.
	echo "test-stress: stress-ng is missing (apt-get install stress-ng); $cpu busy shells for at most $bound beside: ${pkgs[*]}" >&2
	for _ in $(seq "$cpu"); do
		timeout "$bound" sh -c 'while :; do :; done' &
		pids+=($!)
	done
fi
start=$(date +%s)
status=0
# In the background, waited for: a signal to this script is handled at
# once, and stops the tests with the load.
if [ ${#cmd[@]} -gt 0 ]; then
	"${cmd[@]}" &
else
	$GO test -race -count=1 -timeout "$timeout" "${pkgs[@]}" &
fi
pids+=($!)
wait "$!" || status=$?
echo "test-stress: ${cmd[*]:-the tests} took $(($(date +%s) - start))s under load (exit $status)" >&2
exit "$status"

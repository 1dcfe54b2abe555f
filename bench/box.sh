#!/usr/bin/env bash
# A confined `true` in the workspace's box (one long-lived sandbox per run,
# its agent running each command) against a bare `true`, and against the
# sandbox of its own each command had before boxes, side by side in one
# run, the three taking turns. Target: the box at most 2x bare.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(go test -timeout 30m -run '^$' -bench 'BenchmarkBoxTrue' -benchtime "${BENCHTIME:-3s}" -count "${COUNT:-1}" ./sandbox/)
echo "$out" | grep -E '^(Benchmark|goos|goarch|cpu)'
echo "$out" | awk '
	/^BenchmarkBoxTrue/ { for (i = 5; i < NF; i += 2) { v[$(i+1)] += $i }; n++ }
	END {
		if (n) printf "true, interleaved: bare %.2f ms, in the box %.2f ms (%.2fx bare, target <= 2x), in a sandbox of its own %.2f ms (%.1fx the box)\n", v["bare-ms"]/n, v["box-ms"]/n, v["box/bare"]/n, v["own-sandbox-ms"]/n, v["own/box"]/n
	}'

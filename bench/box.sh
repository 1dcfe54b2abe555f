#!/usr/bin/env bash
# A confined `true` in the workspace's box (one long-lived sandbox per run,
# its agent running each command) against a bare `true`, and against the
# sandbox of its own each command had before boxes, side by side in one
# run, the three taking turns. Target: the box at most 2x bare.
#
# With CORE_SANDBOX_IMAGE set (an image the Docker engine has, e.g. the
# Action's that make docker-images builds), also the Docker backend's box
# (one sibling container per run) against the bwrap box and against a
# container of its own per command, the three taking turns. Target: the
# Docker box at most 3x the bwrap box.
set -euo pipefail
cd "$(dirname "$0")/.."
bench='BenchmarkBoxTrue'
if [ -n "${CORE_SANDBOX_IMAGE:-}" ]; then
	bench='Benchmark(Docker)?BoxTrue'
fi
out=$(go test -timeout 30m -run '^$' -bench "$bench" -benchtime "${BENCHTIME:-3s}" -count "${COUNT:-1}" ./sandbox/)
echo "$out" | grep -E '^(Benchmark|goos|goarch|cpu)'
echo "$out" | awk '
	/^BenchmarkBoxTrue/ { for (i = 5; i < NF; i += 2) { v[$(i+1)] += $i }; n++ }
	/^BenchmarkDockerBoxTrue/ { for (i = 5; i < NF; i += 2) { d[$(i+1)] += $i }; m++ }
	END {
		if (n) printf "true, interleaved: bare %.2f ms, in the box %.2f ms (%.2fx bare, target <= 2x), in a sandbox of its own %.2f ms (%.1fx the box)\n", v["bare-ms"]/n, v["box-ms"]/n, v["box/bare"]/n, v["own-sandbox-ms"]/n, v["own/box"]/n
		if (m) printf "true under Docker, interleaved: in the bwrap box %.2f ms, in the Docker box %.2f ms (%.2fx the bwrap box, target <= 3x), in a container of its own %.1f ms (%.0fx the Docker box)\n", d["bwrap-box-ms"]/m, d["docker-box-ms"]/m, d["docker/bwrap"]/m, d["container-ms"]/m, d["container/docker-box"]/m
	}'

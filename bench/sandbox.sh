#!/usr/bin/env bash
# The sandbox's cost, measured side by side in one run: a sandboxed `true`
# against a bare one and against a minimal `bwrap --unshare-all --ro-bind / /
# true`, and a sandboxed warm `go test ./...` of a small module
# against a bare one. Prints the figures and the ratios.
# Targets: under 5 ms added per command; under 1.10x for the warm go test.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(go test -timeout 30m -run '^$' -bench 'BenchmarkTrue|BenchmarkGoTest|BenchmarkDockerTrue' -benchtime "${BENCHTIME:-2s}" -count "${COUNT:-1}" ./sandbox/)
echo "$out" | grep -E '^(Benchmark|goos|goarch|cpu)'
echo "$out" | awk '
	/^BenchmarkTrue\/bare/      { tb += $3; nb++ }
	/^BenchmarkTrue\/sandboxed/ { ts += $3; ns++ }
	/^BenchmarkTrue\/bwrap-minimal/ { tm += $3; nm++ }
	/^BenchmarkGoTest\/bare/      { gb += $3; mb++ }
	/^BenchmarkGoTest\/sandboxed/ { gs += $3; ms++ }
	/^BenchmarkDockerTrue/        { dt += $3; nd++ }
	END {
		if (nb && ns) printf "true: bare %.2f ms, sandboxed %.2f ms, added %.2f ms per command\n", tb/nb/1e6, ts/ns/1e6, (ts/ns - tb/nb)/1e6
		if (nm && ns) printf "true: minimal bwrap (--unshare-all --ro-bind / /) %.2f ms, core sandboxed %.2f ms, ratio %.2fx\n", tm/nm/1e6, ts/ns/1e6, (ts/ns)/(tm/nm)
		if (nd) printf "true in a sibling container (Docker backend, CORE_SANDBOX_IMAGE): %.0f ms per command\n", dt/nd/1e6
		if (mb && ms) printf "warm go test: bare %.0f ms, sandboxed %.0f ms, ratio %.3fx\n", gb/mb/1e6, gs/ms/1e6, (gs/ms)/(gb/mb)
	}'

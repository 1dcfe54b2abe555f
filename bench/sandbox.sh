#!/usr/bin/env bash
# The sandbox's cost, measured side by side in one run: a sandboxed `true`
# against a bare one, against a minimal `bwrap --unshare-all --ro-bind / /
# true` and against bwrap run with core's own arguments (its mounts and
# masks, without the gate, cgroups and filter); a sandboxed warm
# `go test ./...` of a small module against a bare one; and the first
# confined command of a fresh process (`core sandbox run -- true`, the built
# binary) with a fresh $CORE_HOME (the walk behind the masks runs) against a
# primed one (the walk is read from $CORE_HOME/cache/rootonly).
# Targets: confined true at most 1.3x the minimal bwrap; under 1.10x for the
# warm go test.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(go test -timeout 30m -run '^$' -bench 'BenchmarkTrue|BenchmarkGoTest|BenchmarkDockerTrue' -benchtime "${BENCHTIME:-2s}" -count "${COUNT:-1}" ./sandbox/)
echo "$out" | grep -E '^(Benchmark|goos|goarch|cpu)'
echo "$out" | awk '
	/^BenchmarkTrue\/bare/      { tb += $3; nb++ }
	/^BenchmarkTrue\/sandboxed/ { ts += $3; ns++ }
	/^BenchmarkTrue\/bwrap-minimal/ { tm += $3; nm++ }
	/^BenchmarkTrue\/bwrap-profile/ { tp += $3; np++ }
	/^BenchmarkTrue\/interleaved/ { for (i = 5; i < NF; i += 2) { v[$(i+1)] += $i }; ni++ }
	/^BenchmarkGoTest\/bare/      { gb += $3; mb++ }
	/^BenchmarkGoTest\/sandboxed/ { gs += $3; ms++ }
	/^BenchmarkDockerTrue/        { dt += $3; nd++ }
	END {
		if (nb && ns) printf "true: bare %.2f ms, sandboxed %.2f ms, added %.2f ms per command\n", tb/nb/1e6, ts/ns/1e6, (ts/ns - tb/nb)/1e6
		if (nm && ns) printf "true: minimal bwrap (--unshare-all --ro-bind / /) %.2f ms, core sandboxed %.2f ms, ratio %.2fx (target <= 1.30x)\n", tm/nm/1e6, ts/ns/1e6, (ts/ns)/(tm/nm)
		if (nm && np) printf "true: bwrap with core'"'"'s arguments alone %.2f ms, ratio %.2fx of the minimal bwrap (the rest is the gate, cgroups, filter and core)\n", tp/np/1e6, (tp/np)/(tm/nm)
		if (ni) printf "true, interleaved (the three bwrap runs take turns): minimal %.2f ms, core'"'"'s arguments %.2f ms, core sandboxed %.2f ms, ratio %.2fx (target <= 1.30x)\n", v["minimal-ms"]/ni, v["profile-ms"]/ni, v["sandboxed-ms"]/ni, v["ratio"]/ni
		if (nd) printf "true in a sibling container (Docker backend, CORE_SANDBOX_IMAGE): %.0f ms per command\n", dt/nd/1e6
		if (mb && ms) printf "warm go test: bare %.0f ms, sandboxed %.0f ms, ratio %.3fx\n", gb/mb/1e6, gs/ms/1e6, (gs/ms)/(gb/mb)
	}'

# The first confined command of a fresh process.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/core" ./cmd/core
mkdir -p "$tmp/ws" "$tmp/primed"
first() { # $1: CORE_HOME; prints milliseconds
	local start end
	start=$(date +%s%N)
	CORE_HOME="$1" CORE_SESSION_SANDBOX=bwrap "$tmp/core" sandbox run --workspace "$tmp/ws" -- true >/dev/null 2>&1
	end=$(date +%s%N)
	echo $(((end - start) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
first "$tmp/primed" >/dev/null # primes the cache
runs=${FIRST_RUNS:-5}
cold=$(for i in $(seq "$runs"); do first "$tmp/fresh$i"; done | median)
warm=$(for i in $(seq "$runs"); do first "$tmp/primed"; done | median)
printf "first confined true of a fresh process (core sandbox run, median of %d): fresh \$CORE_HOME %d ms, primed %d ms\n" "$runs" "$cold" "$warm"

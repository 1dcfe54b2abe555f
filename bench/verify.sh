#!/usr/bin/env bash
# A session's timing beside a person's, each pair side by side and taking
# turns in one run (session/bench_verify_test.go), with the real sandbox as
# the command line sets it up (your caches, read through `core sandbox
# gocache`, from the core binary built here):
# - a whole `--verify test` session on a small module, the scripted model
#   fixing a bug (edit, go test ./..., done; then the contract and the
#   landing), against the same by hand: git clone, the edit, go test ./...,
#   git commit. Target: <= 1.5x. Beside it, the same by hand with the
#   checks the contract runs: go test ./... on the start commit first.
# - the model's first command, a go test of one package, at the start of a
#   session on a module of 60 packages (the whole module's warm-up
#   starting beside it), against the same go test bare in a fresh clone
#   with your warm caches. Target: <= 1.5x.
# - a warm confined `go test -count=1 ./...` against a bare one. Target:
#   <= 1.1x.
# - the contract's baseline (go test ./... on a checkout of the start
#   commit, in a sandbox of its own) of a module whose compile outweighs
#   its tests, once the warm-up compiled the start commit: seen at the
#   workspace's path, as the contract runs it, against the same at the
#   checkout's own path, as it ran before (sandbox package).
# BENCHTIME (default 5x) sets the iterations of each.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/core" ./cmd/core
CORE_BENCH_CORE="$tmp/core" go test -timeout 60m -run '^$' -bench 'BenchmarkVerifySession|BenchmarkNarrowTestAtStart|BenchmarkWarmGoTest' -benchtime "${BENCHTIME:-5x}" ./session/ |
	tee "$tmp/out" | grep -E '^(Benchmark|cpu)'
go test -timeout 60m -run '^$' -bench 'BenchmarkBaselineAtWorkspacePath' -benchtime "${BENCHTIME:-5x}" ./sandbox/ |
	tee -a "$tmp/out" | grep -E '^Benchmark'
awk '
	function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
	/^BenchmarkVerifySession/ { printf "whole --verify test session: %d ms, by hand %d ms, ratio %.2fx (target <= 1.5x); by hand with the contract'"'"'s checks (go test on the start commit first) %d ms, ratio %.2fx\n", metric("session-ms"), metric("hand-ms"), metric("ratio"), metric("red-green-ms"), metric("ratio-red-green")
		printf "  the session until the model'"'"'s done (before the contract and the landing): %d ms, %.2fx by hand\n", metric("to-done-ms"), metric("ratio-to-done") }
	/^BenchmarkNarrowTestAtStart/ { printf "one-package go test at session start (60 packages): %d ms, bare with warm caches %d ms, ratio %.2fx (target <= 1.5x)\n", metric("session-ms"), metric("bare-ms"), metric("ratio") }
	/^BenchmarkBaselineAtWorkspacePath/ { printf "the contract'"'"'s baseline after the warm-up (12 compile-heavy packages): at the workspace'"'"'s path %d ms, at its own path %d ms, ratio %.2fx\n", metric("at-workspace-ms"), metric("own-path-ms"), metric("ratio") }
	/^BenchmarkWarmGoTest/ { printf "warm go test ./...: confined %d ms, bare %d ms, ratio %.3fx (target <= 1.1x)\n", metric("confined-ms"), metric("bare-ms"), metric("ratio") }
' "$tmp/out"

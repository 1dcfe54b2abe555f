#!/usr/bin/env bash
# The engine's figures, side by side in one run: its cost per turn beside a
# bare go-openai round trip with the same requests, and the 40-turn reading
# session (twenty 5-14 KB files, scripted model) at three budgets: prompt
# tokens in all (the model server's count) against the same session on the
# tree before the context window (commit 1654501, figures kept below), the
# largest request's estimate against the budget, and the median share of
# each request that repeats the previous request's beginning.
# Targets: engine/bare <= 1.2x; prompt tokens <= 0.5x of before; largest
# <= the budget; prefix reuse median >= 0.9.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(go test -run '^$' -bench 'BenchmarkTurn|BenchmarkReadingSession' -benchtime "${BENCHTIME:-5x}" -count "${COUNT:-1}" ./session/)
echo "$out" | grep -E '^(Benchmark|cpu)'
echo "$out" | awk '
	function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
	BEGIN { before[32768] = 821936; before[8192] = 276829; before[4096] = 227076 }
	/^BenchmarkTurn/ { e += metric("ns/turn"); b += metric("bare-ns/turn"); n++ }
	/^BenchmarkReadingSession/ {
		split($1, p, "="); budget = p[2] + 0
		tok[budget] = metric("prompt-tokens"); big[budget] = metric("largest-est"); med[budget] = metric("prefix-median")
	}
	END {
		if (n) printf "engine per turn: %.2f ms, bare go-openai round trip %.2f ms, %.2fx (target <= 1.2x)\n", e/n/1e6, b/n/1e6, e/b
		printf "reading session, 40 turns:\n"
		printf "  %-7s %-14s %-14s %-7s %-22s %s\n", "budget", "prompt tokens", "before", "ratio", "largest request (est.)", "prefix reuse median"
		split("32768 8192 4096", bs, " ")
		for (i = 1; i <= 3; i++) {
			x = bs[i] + 0
			if (tok[x] == "") continue
			printf "  %-7d %-14d %-14d %-7.2f %-22s %.3f\n", x, tok[x], before[x], tok[x]/before[x], sprintf("%d (%s)", big[x], big[x] <= x ? "fits" : "OVER"), med[x]
		}
	}'

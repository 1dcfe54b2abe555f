#!/usr/bin/env bash
# Measures the held-out mutation sample of the security rules (#36):
# internal/measure/mutate makes the classic mutants inside the functions
# internal/measure/mutate/targets.txt names, runs each one's package's
# tests on it through go test -overlay (one at a time, -p 1; the tree is
# never written), and prints per target and in total the mutants, those
# killed and those that survived, the score, and the survivors
# (file:line:col, operator). A mutant that does not compile is not counted.
#
#   scripts/mutation.sh              the development half's sample
#   scripts/mutation.sh --held       the held-out half's sample: run it once,
#                                    after the tests are improved from the
#                                    development half's survivors
#   scripts/mutation.sh --all        both halves, the whole set (slow)
#
# Any other argument goes to the program (-timeout, -list, -sample).
# A tool, not a test: CI does not run it (about 12 minutes per half's
# sample on two busy cores).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
half=dev sample=2 rest=()
for arg in "$@"; do
	case $arg in
	--held) half=held ;;
	--all) half=all sample=1 ;;
	*) rest+=("$arg") ;;
	esac
done
"$GO" build -o "${TMPDIR:-/tmp}/core-mutate.$$" ./internal/measure/mutate
trap 'rm -f "${TMPDIR:-/tmp}/core-mutate.$$"' EXIT
"${TMPDIR:-/tmp}/core-mutate.$$" -half "$half" -sample "$sample" ${rest[@]+"${rest[@]}"}

#!/usr/bin/env bash
# The bot's acknowledgement speed beside a bare handler that only verifies
# the signature, measured side by side in one run (loopback, signed real
# example payloads). Targets: throughput within 1.5x of the bare handler;
# p99 under 50 ms at 200 deliveries a second.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/fixtures.sh
go test -run '^$' -bench BenchmarkDeliveries -benchtime "${BENCHTIME:-3x}" ./bot/ | grep -E '^(Benchmark|cpu)' | tr '\t' '\n' | sed 's/^ *//' | grep -v '^$'

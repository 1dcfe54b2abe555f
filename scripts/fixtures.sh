#!/usr/bin/env bash
# Fetches the external test fixtures into .fixtures/ (ignored by git):
#   .fixtures/toon-spec/      npm @toon-format/spec (the TOON conformance suite)
#   .fixtures/webhooks/       npm @octokit/webhooks-examples (real webhook payloads)
#   .fixtures/toon-ref/       npm @toon-format/toon (the reference TypeScript
#                             implementation; toon's interop test runs it with node)
#   .fixtures/openapi/        npm @octokit/openapi (GitHub's REST API description;
#                             testkit/openapi checks the requests tests made)
# Safe to run again: a fixture already present at the pinned version is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .fixtures

fetch() { # fetch NAME@VERSION DIR
	local spec=$1 dir=$2 stamp=".fixtures/$2/.version"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$spec" ]; then
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "fixtures: npm is not installed; cannot fetch $spec" >&2
		return 1
	fi
	local tmp
	tmp=$(mktemp -d)
	echo "fixtures: fetching $spec" >&2
	(cd "$tmp" && npm pack --silent "$spec" >/dev/null)
	rm -rf ".fixtures/$dir"
	mkdir -p ".fixtures/$dir"
	tar -xzf "$tmp"/*.tgz -C ".fixtures/$dir" --strip-components=1
	echo "$spec" >"$stamp"
	rm -rf "$tmp"
}

fetch @toon-format/spec@3.3.2 toon-spec
fetch @octokit/webhooks-examples@7.6.1 webhooks
fetch @toon-format/toon@4.4.0 toon-ref
fetch @octokit/openapi@23.0.2 openapi

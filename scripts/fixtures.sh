#!/usr/bin/env bash
# Fetches the external test fixtures into .fixtures/ (ignored by git):
#   .fixtures/toon-spec/      npm @toon-format/spec (the TOON conformance suite)
#   .fixtures/webhooks/       npm @octokit/webhooks-examples (real webhook payloads)
#   .fixtures/toon-ref/       npm @toon-format/toon (the reference TypeScript
#                             implementation; toon's interop test runs it with node)
#   .fixtures/openapi/        npm @octokit/openapi (GitHub's REST API description;
#                             testkit/openapi checks the requests tests made; only
#                             generated/api.github.com.json is kept of its ~400 MB)
# Safe to run again: a fixture already present at the pinned version is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .fixtures

fetch() { # fetch NAME@VERSION DIR [KEEP...]: with KEEP, only those files stay
	local spec=$1 dir=$2 stamp=".fixtures/$2/.version"
	shift 2
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$spec" ]; then
		keep "$dir" "$@"
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
	keep "$dir" "$@"
	echo "$spec" >"$stamp"
	rm -rf "$tmp"
}

keep() { # keep DIR [FILE...]: delete all but FILE... (and the stamp) under .fixtures/DIR
	local dir=".fixtures/$1" f
	shift
	[ $# -gt 0 ] || return 0
	for f in "$@"; do
		if [ ! -f "$dir/$f" ]; then
			echo "fixtures: $dir/$f is missing from the package" >&2
			return 1
		fi
	done
	local args=()
	for f in "$@"; do args+=(! -path "$dir/$f"); done
	find "$dir" -type f ! -name .version "${args[@]}" -delete
	find "$dir" -mindepth 1 -type d -empty -delete
}

fetch @toon-format/spec@3.3.2 toon-spec
fetch @octokit/webhooks-examples@7.6.1 webhooks
fetch @toon-format/toon@4.4.0 toon-ref
fetch @octokit/openapi@23.0.2 openapi generated/api.github.com.json

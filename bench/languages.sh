#!/usr/bin/env bash
# A fix on real repositories in Python, Node.js and Rust, run by core with a
# scripted model: each repository is cloned at a pinned commit, broken in
# one place (one line, by sed, committed as "break"), and the scripts under
# bench/languages (cmd/core's TestRealRepositories) run core on it; the
# contract must show the repository's own test command going from failing
# to passing, both runs confined.
#
#   bench/languages.sh            clones from GitHub (needs the network)
#   MIRROR=DIR bench/languages.sh clones from DIR/owner+name/repo instead
#
# Needs bwrap, Debian's python3-pytest, node and npm, and cargo. Nothing of
# these repositories is kept in core. With the images make docker-images
# builds named as make test-docker names them (CORE_DOCKER_IMAGE,
# CORE_TEST_PYTHON_IMAGE, CORE_TEST_NODE_IMAGE, CORE_TEST_RUST_IMAGE), the
# scripts under bench/languages/action (TestRealRepositoriesAction) make
# the same fixes in the Action, on its image and the toolchain images.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "keeping $tmp" || trap 'rm -rf "$tmp"' EXIT

# name, owner/name, commit, file, the line as it is, the line broken.
repos=(
	"toolz|pytoolz/toolz|568c2b8|toolz/itertoolz.py|        d[item] += 1|        d[item] = 1"
	"color-name|colorjs/color-name|ac6cd6f|index.js|export default Object.freeze(colors);|export default colors;"
	"rust-fnv|servo/rust-fnv|4e55052|lib.rs|            hash ^= u64::from(*byte);|            hash |= u64::from(*byte);"
)
for r in "${repos[@]}"; do
	IFS='|' read -r name slug commit file before after <<<"$r"
	src=https://github.com/$slug
	[ -n "${MIRROR:-}" ] && src=$MIRROR/${slug/\//+}/repo
	git clone -q "$src" "$tmp/$name"
	git -C "$tmp/$name" checkout -q "$commit"
	# The line must be there exactly once, and be changed.
	n=$(grep -cxF -- "$before" "$tmp/$name/$file" || true)
	[ "$n" = 1 ] || { echo "$slug@$commit: $file has \"$before\" $n times, not once" >&2; exit 1; }
	python3 - "$tmp/$name/$file" "$before" "$after" <<'PY'
import sys
path, before, after = sys.argv[1:]
lines = open(path).read().split("\n")
open(path, "w").write("\n".join(after if line == before else line for line in lines))
PY
	git -C "$tmp/$name" -c user.name=bench -c user.email=bench@example.com commit -qam "break $file"
	echo "$slug@$commit: broke $file: \"${before#"${before%%[! ]*}"}\" -> \"${after#"${after%%[! ]*}"}\"" >&2
done
CORE_REAL_REPOS=$tmp go test -count=1 -timeout 30m -v -run 'TestRealRepositories' ./cmd/core/ 2>&1 \
	| grep -E '^\s*(---|ok|FAIL|PASS)|fixed:|failing:|passing:|contract|languages:|checks from CI|completed|> exec core' || true

#!/usr/bin/env bash
# Prints the measures of the house that #36 sets limits on, as the Markdown
# footer of docs/architecture.md (internal/measure): each package's non-test
# lines and files, the functions above 80 lines, the cognitive complexity of
# the top 10 (gocognit), the structs of session and setup above 12 fields,
# which fields of session.Options each entry point sets, and the linters:
# staticcheck (make staticcheck's pinned one), deadcode (the version of
# golang.org/x/tools in go.sum) and duplicates when it is on the PATH.
#
#   scripts/measures.sh            print the footer
#   scripts/measures.sh --write    replace the footer of docs/architecture.md
#   --quick                        skip staticcheck, deadcode and duplicates,
#                                  keeping the footer's last figures of them
#
# A tool, not a test: CI does not run it; internal/archlint checks that the
# footer names the module's packages.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
GOCOGNIT_VERSION=v1.3.0
STATICCHECK_VERSION=$(sed -n 's/^STATICCHECK_VERSION ?= //p' Makefile)
XTOOLS_VERSION=$(awk '$1 == "golang.org/x/tools" && $2 !~ /go\.mod$/ { print $2 }' go.sum | sort -V | tail -n 1)

write=() quick=()
for arg in "$@"; do
	case $arg in
	--write) write=(-write) ;;
	--quick) quick=(-quick) ;;
	*)
		echo "usage: scripts/measures.sh [--write] [--quick], got \"$arg\"" >&2
		exit 2
		;;
	esac
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "measures: gocognit $GOCOGNIT_VERSION" >&2
"$GO" run "github.com/uudashr/gocognit/cmd/gocognit@$GOCOGNIT_VERSION" -test=false -top 10 \
	-ignore '(^|/)(testdata|\.cache|\.fixtures|node_modules)/' \
	-f '{{.Complexity}}	{{.PkgName}}	{{.FuncName}}	{{.Pos}}' . >"$out/gocognit.txt" 2>"$out/gocognit.err" || {
	cat "$out/gocognit.err" >&2
	exit 1
}

if [ ${#quick[@]} -eq 0 ]; then
	echo "measures: staticcheck $STATICCHECK_VERSION (make staticcheck)" >&2
	rc=0
	make -s staticcheck GO="$GO" >"$out/staticcheck.txt" || rc=$?
	echo "$rc" >"$out/staticcheck.rc"

	echo "measures: deadcode $XTOOLS_VERSION" >&2
	rc=0
	"$GO" run "golang.org/x/tools/cmd/deadcode@$XTOOLS_VERSION" -test ./... >"$out/deadcode.txt" || rc=$?
	echo "$rc" >"$out/deadcode.rc"

	if command -v duplicates >/dev/null 2>&1; then
		echo "measures: duplicates" >&2
		duplicates --seconds 120 >"$out/duplicates.txt"
	fi
fi

echo "measures: internal/measure" >&2
commit="\`$(git rev-parse --short=12 HEAD)\`"
if [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
	commit="$commit (with uncommitted changes)"
fi
"$GO" run ./internal/measure -tools "$out" -date "$(date -u +%Y-%m-%d)" -commit "$commit" \
	-gocognit "$GOCOGNIT_VERSION" -staticcheck "$STATICCHECK_VERSION" -deadcode "$XTOOLS_VERSION" \
	"${write[@]}" "${quick[@]}"

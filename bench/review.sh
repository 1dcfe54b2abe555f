#!/usr/bin/env bash
# Reviews with evidence on real upstream fixes (#38): for each fix of
# bench/realrepos-tasks.sh whose tests catch the bug it fixes, two pull
# requests reviewed by `core review --base` with a scripted model that
# writes the reproduction a careful reviewer would (the fix's test file,
# run with the task's check, predicting its failure):
# - the reverse, a pull request that introduces the bug: its base is the
#   fix's parent with the fix's code (SRC) and without the fix's tests, its
#   head puts the parent's code back. The reproduction should fail on the
#   head and pass on the base: a confirmed finding (recall).
# - the fix itself, a clean pull request (base: the fix's parent; head: the
#   fix). The same reproduction passes on the head: no confirmed finding
#   (false confirmations: must be 0). The harness's classification of the
#   pull request's own tests (the fix's TESTS) should say "tests the change".
# Beside each review, the same commands by hand in a fresh clone (by_hand
# below). Target: the review <= 1.3x.
#
#   bench/review.sh               clones from GitHub (needs the network)
#   MIRROR=DIR bench/review.sh    clones from DIR/owner+name/repo instead
#   ONLY=name,name                runs only those tasks
#   KEEP=1                        keeps the work directory
#
# Needs what bench/realrepos.sh needs (git, python3, bwrap, go, pytest,
# node, npm, cargo, and the registries for the dependency steps).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. bench/realrepos-tasks.sh

for tool in git python3 bwrap go pytest node npm cargo; do
	command -v "$tool" >/dev/null || {
		echo "bench/review.sh needs $tool on PATH (see bench/realrepos.sh for what to install)" >&2
		exit 1
	}
done

# The fixes whose tests do not catch a bug (they only drop brittle tests):
# nothing to reproduce.
skip=",py-koans,"

tmp=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "keeping $tmp" >&2; else trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT; fi
mkdir -p "$tmp/scripts" "$tmp/out" "$tmp/repos" "$tmp/hand"

# expect NAME CHECK: the failure a careful reviewer predicts the check
# prints (the test runner's word for a failing test).
expect() {
	case "$1|$2" in
	*"|go test"*) echo "--- FAIL" ;;
	*pytest*) echo " failed" ;;
	*"|cargo test"*) echo "test result: FAILED" ;;
	*"|npx ava"*) echo " failed" ;; # ava: "2 tests failed"
	node-minimatch\|*) echo "not ok" ;; # tap
	*) echo "failing" ;;                 # mocha
	esac
}

git_commit() {
	git -C "$1" -c user.name=bench -c user.email=bench@example.com commit -qam "$2" --allow-empty
}

# build NAME URL FIX SRC TESTS: the repository and its four branches:
# clean-base (FIX^), clean-head (FIX), bug-base (FIX^ with FIX's SRC),
# bug-head (bug-base with FIX^'s SRC back).
build() {
	local name=$1 url=$2 fix=$3 src=$4 repo=$tmp/repos/$1 f
	git clone -q "$url" "$repo"
	git -C "$repo" checkout -q -b clean-base "$fix^"
	git -C "$repo" branch clean-head "$fix"
	git -C "$repo" checkout -q -b bug-base clean-base
	for f in $src; do git -C "$repo" show "$fix:$f" >"$repo/$f"; done
	git -C "$repo" add -- $src
	git_commit "$repo" "the fixed code, without its tests ($fix)"
	git -C "$repo" checkout -q -b bug-head
	for f in $src; do
		if git -C "$repo" cat-file -e "$fix^:$f" 2>/dev/null; then
			git -C "$repo" show "$fix^:$f" >"$repo/$f"
		else
			git -C "$repo" rm -q -- "$f"
		fi
	done
	git -C "$repo" add -A -- $src
	git_commit "$repo" "a change to $(echo $src | cut -d' ' -f1)"
}

# script NAME PR REPO BASE HEAD CHECK FILE LINE TESTFILE TESTCONTENT EXPECT
# OUT: the txtar of one review: the scripted model reports one finding
# with the fix's test as its reproduction, then is done.
script() {
	python3 - "$@" <<'PY'
import json, sys
name, pr, repo, base, head, check, file, line, path, content, expect, out = sys.argv[1:]
def reply(tool, **args):
    return ">>> tool_call " + tool + "\n" + json.dumps(args) + "\n"
model = reply("git_diff")
model += reply("finding", file=file, line=int(line), claim=f"this change breaks what {path} tests: the test fails",
    path=path, content=open(content, encoding="utf-8").read(), command=check, expect=expect)
model += reply("done", summary="One finding, with a reproduction.")
def sh(s):
    return "'" + s.replace("'", "'\\''") + "'"
print(f"""# {name} {pr}: written by bench/review.sh
[!bwrap] skip 'bwrap is not usable here'
model-serve model.txt
exec sh run.sh
cp review.stderr {out}/{name}-{pr}.stderr
session-id ID
cp $CORE_HOME/sessions/$ID/report.json {out}/{name}-{pr}.report.json

-- run.sh --
git -C {sh(repo)} checkout -q {sh(head)}
core review --repo {sh(repo)} --base {sh(base)} --verify test --check {sh(check)} --shell-timeout 15m >review.stdout 2>review.stderr
echo "core exited $?" >>review.stderr
-- model.txt --
{model}""", end="")
PY
}

# firstline REPO BASE HEAD FILE: the first line of FILE the diff from BASE
# to HEAD shows on the head's side (1 when it shows none).
firstline() {
	git -C "$1" diff -U0 "$2" "$3" -- "$4" | sed -n 's/^@@ -[0-9,]* +\([0-9]*\).*/\1/p' | awk '$1 > 0 {print; exit}' | grep . || echo 1
}

# by_hand NAME PR REPO BASE HEAD CHECK TESTFILE CONTENT [TESTS...]: the
# harness's commands by hand in a fresh clone, in seconds: the check on
# the base and on the head, the reproduction on the head and on the base,
# and, for the pull request's own test files TESTS, the check on the base
# with the head's versions of them copied in (the classification's run on
# the head is the check's).
by_hand() {
	local name=$1 pr=$2 repo=$3 base=$4 head=$5 check=$6 path=$7 content=$8 dir=$tmp/hand/$1-$2 t0 t1 f
	shift 8
	git -c advice.detachedHead=false clone -q "$repo" "$dir"
	t0=$(date +%s.%N)
	(
		PATH=$(tr ':' '\n' <<<"$PATH" | grep -v '/shims$' | paste -sd:)
		cd "$dir"
		for side in "$base" "$head"; do
			git checkout -q -f "$side"
			if [ -f go.mod ]; then go mod download; fi
			if [ -f package.json ]; then npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null; fi
			if [ -f Cargo.toml ]; then cargo fetch -q; fi
			sh -c "$check" >/dev/null 2>&1 || true
		done
		for side in "$head" "$base"; do
			git checkout -q -f "$side"
			mkdir -p "$(dirname "$path")"
			cp "$content" "$path"
			sh -c "$check" >/dev/null 2>&1 || true
		done
		if [ $# -gt 0 ]; then
			git checkout -q -f "$base"
			for f in "$@"; do
				mkdir -p "$(dirname "$f")"
				git show "$head:$f" >"$f"
			done
			sh -c "$check" >/dev/null 2>&1 || true
		fi
	) >"$tmp/out/$name-$pr.hand" 2>&1 || true
	t1=$(date +%s.%N)
	python3 -c "print(f'{$t1 - $t0:.2f}')"
}

runs=()
for t in "${tasks[@]}"; do
	IFS='|' read -r name slug fix check src tests note <<<"$t"
	if [ -n "${ONLY:-}" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
	[[ "$skip" == *",$name,"* ]] && continue
	url=https://github.com/$slug
	[ -n "${MIRROR:-}" ] && url=$MIRROR/${slug/\//+}/repo
	build "$name" "$url" "$fix" "$src"
	repo=$tmp/repos/$name
	path=${tests%% *}
	content=$tmp/out/$name.repro
	git -C "$repo" show "$fix:$path" >"$content"
	file=${src%% *}
	for pr in bug clean; do
		line=$(firstline "$repo" "$pr-base" "$pr-head" "$file")
		script "$name" "$pr" "$repo" "$pr-base" "$pr-head" "$check" "$file" "$line" "$path" "$content" "$(expect "$name" "$check")" "$tmp/out" >"$tmp/scripts/$name-$pr.txtar"
		own=""
		[ "$pr" = clean ] && own=$tests
		runs+=("$name|$pr|$slug@$fix|$check|$path|$content|$own")
	done
	echo "$name: $slug@$fix ($note)" >&2
done

go build -o "$tmp/core" ./cmd/core
go test -c -o "$tmp/core.test" ./cmd/core

for r in "${runs[@]}"; do
	IFS='|' read -r name pr what check path content own <<<"$r"
	echo "reviewing $name $pr ($what) ..." >&2
	(cd cmd/core && CORE_REAL_FIXES=$tmp/scripts "$tmp/core.test" -test.count=1 -test.timeout 60m -test.run "TestRealRepositoryFixes/^$name-$pr\$" >"$tmp/out/$name-$pr.test" 2>&1) || true
	# shellcheck disable=SC2086 # own is a list of paths
	hand=$(by_hand "$name" "$pr" "$tmp/repos/$name" "$pr-base" "$pr-head" "$check" "$path" "$content" $own)
	echo "$name|$pr|$what|$hand" >>"$tmp/out/runs"
done

python3 - "$tmp/out" <<'PY'
import json, os, re, sys
from datetime import datetime
out = sys.argv[1]
def t(s):
    return datetime.fromisoformat(re.sub(r"(\.\d{6})\d+", r"\1", s).replace("Z", "+00:00"))
recall = [0, 0]; false = [0, 0]; classed = [0, 0]; ratios = []
for row in open(os.path.join(out, "runs")).read().split("\n"):
    if not row:
        continue
    name, pr, what, hand = row.split("|")
    p = os.path.join(out, f"{name}-{pr}.report.json")
    if not os.path.exists(p):
        print(f"== {name} {pr} ({what}): no report (see {name}-{pr}.test)")
        continue
    r = json.load(open(p))
    rv = r.get("review") or {}
    fs = rv.get("findings") or []
    conf = [f for f in fs if f.get("confirmed")]
    print(f"== {name} {pr} ({what}): status {r.get('status')}, {len(conf)} confirmed of {len(fs)}")
    for f in fs:
        rep = f.get("reproduction") or {}
        side = lambda s: "-" if not s else f"exit {s.get('exit')}" + (f" ({s.get('error')})" if s.get("error") else "")
        print(f"   {'confirmed' if f.get('confirmed') else 'unconfirmed'}: {f.get('why')} (head {side(rep.get('head'))}, base {side(rep.get('base'))})")
    if pr == "bug":
        recall[1] += 1; recall[0] += bool(conf)
    else:
        false[1] += 1; false[0] += bool(conf)
        tests = (rv.get("tests") or {}).get("files") or []
        for c in tests:
            print(f"   the pull request's test {c.get('path')}: {c.get('class')} ({c.get('reason')})")
        classed[1] += 1; classed[0] += bool(tests) and all(c.get("class") == "tests_change" for c in tests)
    try:
        secs = (t(r["ended_at"]) - t(r["started_at"])).total_seconds()
        h = float(hand)
        ratios.append(secs / h)
        print(f"   time: review {secs:.1f}s, by hand {h:.1f}s ({secs / h:.2f}x)")
    except Exception as e:
        print(f"   time: not measured ({e})")
print()
print(f"recall: {recall[0]}/{recall[1]} bug-introducing pull requests with a confirmed finding")
print(f"false confirmations: {false[0]} of {false[1]} clean pull requests (target 0)")
print(f"classification: {classed[0]}/{classed[1]} clean pull requests whose own tests all 'test the change'")
if ratios:
    ratios.sort()
    print(f"time, review against by hand: median {ratios[len(ratios) // 2]:.2f}x, worst {ratios[-1]:.2f}x (target <= 1.3x)")
PY

#!/usr/bin/env bash
# Real upstream fixes on real repositories no test of core chose, in Go,
# Python, Node.js and Rust, replayed by core with a scripted model
# (cmd/core's TestRealRepositoryFixes). For each fix: the repository is
# cloned at the fix's parent, the fix's tests (the files TESTS names, as the
# fix left them) are committed there as the start ("tests of <fix>"), and
# the scripted model runs the check, writes the fix's other files (SRC, as
# the fix left them; the rest of the upstream diff, changelogs and docs, is
# left out), runs the check again and is done. core runs with --verify test
# and the check, so the contract runs it on the start and on the result.
#
# Prints per task: what core detected (its languages line) and the checks
# the contract ran, the dependency step's lines, each check's base ->
# result verdict, the contract, whether the landed tree equals the start
# with the upstream files (the upstream diff less its tests), and the
# session's time (report.json's start to end) against the same commands by
# hand: in a fresh clone of the start, the dependencies fetched (go mod
# download, npm install --ignore-scripts, cargo fetch; nothing for Python),
# the check on the start, the upstream files, the check again, with the
# user's caches as the session left them. Target: every correct fix
# `fixed`, no environment cause reported as the code's.
#
#   bench/realrepos.sh            clones from GitHub (needs the network)
#   MIRROR=DIR bench/realrepos.sh clones from DIR/owner+name/repo instead
#   ONLY=name,name                runs only those tasks
#   KEEP=1                        keeps the work directory: its out/ has each
#                                 session's stderr, report.json and the
#                                 requests the model got (the outputs of
#                                 the model's own runs, for a verdict's why)
#
# Needs git, python3, bwrap, go, Debian's python3-pytest, node and npm, and
# cargo; the registries (Go's module proxy, PyPI, npm, crates.io) for the
# dependency steps. Nothing of these repositories is kept in core.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

for tool in git python3 bwrap go pytest node npm cargo; do
	command -v "$tool" >/dev/null || {
		echo "bench/realrepos.sh needs $tool on PATH (see the comment at its top for what to install)" >&2
		exit 1
	}
done

tmp=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "keeping $tmp" >&2; else trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT; fi
mkdir -p "$tmp/scripts" "$tmp/out" "$tmp/repos" "$tmp/hand"

# The tasks: bench/realrepos-tasks.sh (bench/review.sh reviews the same fixes).
. bench/realrepos-tasks.sh

# script NAME REPO CHECK PROMPT UPSTREAM OUT SRC...: the txtar of one task;
# its session's stderr and report.json are copied to OUT.
script() {
	python3 - "$@" <<'PY'
import json, sys
name, repo, check, prompt, upstream, out, *src = sys.argv[1:]
def reply(tool, **args):
    return ">>> tool_call " + tool + "\n" + json.dumps(args) + "\n"
fix = reply("run_shell", command=check)
for f in src:
    fix += reply("write_file", path=f, content=open(upstream + "/" + f, encoding="utf-8").read())
fix += reply("run_shell", command=check) + reply("done", summary="upstream fix: " + prompt)
def sh(s):
    return "'" + s.replace("'", "'\\''") + "'"
# The session's exit status is the contract's: whatever it is, the
# script goes on to copy what it printed and reported.
print(f"""# {name}: written by bench/realrepos.sh
[!bwrap] skip 'bwrap is not usable here'
model-serve fix.txt
exec sh run.sh
cp session.stderr {out}/{name}.stderr
model-requests requests.txt
cp requests.txt {out}/{name}.requests
session-id ID
cp $CORE_HOME/sessions/$ID/report.json {out}/{name}.report.json

-- run.sh --
core session start --repo {sh(repo)} --prompt {sh(prompt)} --verify test --check {sh(check)} --shell-timeout 15m 2>session.stderr
echo "core exited $?" >>session.stderr
-- fix.txt --
{fix}""", end="")
PY
}

for t in "${tasks[@]}"; do
	IFS='|' read -r name slug fix check src tests note <<<"$t"
	if [ -n "${ONLY:-}" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
	url=https://github.com/$slug
	[ -n "${MIRROR:-}" ] && url=$MIRROR/${slug/\//+}/repo
	repo=$tmp/repos/$name
	git clone -q "$url" "$repo"
	git -C "$repo" checkout -q "$fix^"
	# The fix's tests on its parent: the start.
	for f in $tests; do
		mkdir -p "$(dirname "$repo/$f")"
		git -C "$repo" show "$fix:$f" >"$repo/$f"
	done
	git -C "$repo" add -- $tests
	git -C "$repo" -c user.name=bench -c user.email=bench@example.com commit -qm "tests of $slug@$fix"
	# The fix's other files, for the model and by hand.
	for f in $src; do
		mkdir -p "$(dirname "$tmp/upstream/$name/$f")"
		git -C "$repo" show "$fix:$f" >"$tmp/upstream/$name/$f"
	done
	# The tree the session should land: the start with the upstream files.
	start=$(git -C "$repo" rev-parse HEAD)
	export GIT_INDEX_FILE=$tmp/index-$name
	git -C "$repo" read-tree "$start"
	for f in $src; do
		git -C "$repo" update-index --add --cacheinfo "$(git -C "$repo" ls-tree "$fix" -- "$f" | awk '{print $1","$3}'),$f"
	done
	git -C "$repo" write-tree >"$tmp/out/$name.want-tree"
	unset GIT_INDEX_FILE
	script "$name" "$repo" "$check" "$(git -C "$repo" log -1 --format=%s "$fix")" "$tmp/upstream/$name" "$tmp/out" $src >"$tmp/scripts/$name.txtar"
	echo "$name: $slug@$fix ($note); start $(git -C "$repo" rev-parse --short HEAD) = $fix^ + $tests" >&2
done

go build -o "$tmp/core" ./cmd/core
go test -c -o "$tmp/core.test" ./cmd/core

report() {
	python3 - "$@" <<'PY'
import json, re, sys
name, stderr, rep, want, hand, note = sys.argv[1:]
out = open(stderr, encoding="utf-8", errors="replace").read() if stderr else ""
r = json.load(open(rep)) if rep else {}
print(f"== {name} ({note})")
for line in out.splitlines():
    if line.startswith(("languages:", "pre-flight:")):
        print("  " + line)
deps = [l for l in out.splitlines() if re.search(r"dependenc|npm ci|npm install|pip install|pip3|wheel|cargo vendor|vendor|lockfile|package-lock|Cargo.lock|warm", l, re.I) and not l.startswith(("turn ", "languages:", "  "))]
print("  dependency step: " + ("; ".join(list(dict.fromkeys(deps))[:6])[:600] if deps else "(no line)"))
c = r.get("contract") or {}
for ch in c.get("checks") or []:
    b, res = ch.get("baseline") or {}, ch.get("result") or {}
    def side(s):
        if not s:
            return "-"
        bits = [f"exit {s.get('exit')}", f"{s.get('seconds', 0):.1f}s"]
        if s.get("timed_out"):
            bits.append("timed out")
        for k in ("error", "cause", "outcome", "owner", "evidence"):
            if s.get(k):
                bits.append(f"{k}: " + str(s[k])[:200].replace("\n", " | "))
        return ", ".join(bits)
    print(f"  check {' '.join(ch.get('command') or [])}: {ch.get('verdict')} (base {side(b)} -> result {side(res)})")
for line in out.splitlines():
    if line.startswith(("contract", "core exited")) or re.match(r"session \S+: ", line):
        print("  " + line)
tree = r.get("landed_tree") or r.get("tree") or ""
w = open(want).read().strip()
print(f"  landed = upstream diff less tests: {'yes' if tree and tree == w else 'no'} (landed {tree[:12] or 'nothing'}, upstream {w[:12]}; status {r.get('status')}, landed {r.get('landed')})")
from datetime import datetime
def t(s):
    s = re.sub(r"(\.\d{6})\d+", r"\1", s).replace("Z", "+00:00")
    return datetime.fromisoformat(s)
try:
    secs = (t(r["ended_at"]) - t(r["started_at"])).total_seconds()
except Exception:
    secs = float("nan")
h = float(hand) if hand else float("nan")
print(f"  time: session {secs:.1f}s, by hand {h:.1f}s ({secs / h:.2f}x)" if h == h and h > 0 else f"  time: session {secs:.1f}s, by hand not measured")
PY
}

# by_hand NAME REPO CHECK SRC...: the same commands by hand in a fresh clone
# of the start, in seconds.
by_hand() {
	local name=$1 repo=$2 check=$3 dir=$tmp/hand/$1
	shift 3
	git -c advice.detachedHead=false clone -q "$repo" "$dir"
	local t0 t1
	t0=$(date +%s.%N)
	(
		# The programs core would run: a version manager's shim (pyenv's
		# python3, without Debian's pytest) is passed over, as core does.
		PATH=$(tr ':' '\n' <<<"$PATH" | grep -v '/shims$' | paste -sd:)
		cd "$dir"
		if [ -f go.mod ]; then go mod download; fi
		if [ -f package.json ]; then npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null; fi
		if [ -f Cargo.toml ]; then cargo fetch -q; fi
		sh -c "$check" >/dev/null 2>&1 || true
		for f in "$@"; do cp "$tmp/upstream/$name/$f" "$f"; done
		sh -c "$check" >/dev/null 2>&1 || true
	) >"$tmp/out/$name.hand" 2>&1 || true
	t1=$(date +%s.%N)
	python3 -c "print(f'{$t1 - $t0:.2f}')"
}

for t in "${tasks[@]}"; do
	IFS='|' read -r name slug fix check src tests note <<<"$t"
	if [ -n "${ONLY:-}" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
	echo "running $name ($slug@$fix) ..." >&2
	(cd cmd/core && CORE_REAL_FIXES=$tmp/scripts "$tmp/core.test" -test.count=1 -test.timeout 60m -test.run "TestRealRepositoryFixes/^$name\$" >"$tmp/out/$name.test" 2>&1) || true
	hand=$(by_hand "$name" "$tmp/repos/$name" "$check" $src)
	rep=$tmp/out/$name.report.json
	[ -f "$rep" ] || { rep=""; tail -20 "$tmp/out/$name.test" >&2; }
	err=$tmp/out/$name.stderr
	[ -f "$err" ] || err=""
	report "$name" "$err" "$rep" "$tmp/out/$name.want-tree" "$hand" "$slug@$fix: $note"
done

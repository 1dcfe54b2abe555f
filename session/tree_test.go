package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// The leftover attacks: a repository whose test, run as a check, says
// where a process the run left in its box can see it that the harness's
// check has started ("checking"), and waits (bounded) for it to act
// ("acted"); the leftover then rewrites the fixed file, or waits for the
// landing guard's git add and writes a workflow. Asked to ("spawn"), the
// test leaves the leftover itself, detached in a session of its own.
const (
	leftoverBroken = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
	leftoverFixed  = "package calc\n\nfunc Add(a, b int) int { return a + b }\n"
	leftoverTest   = `package calc

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestAdd(t *testing.T) {
	if Add(2, 2) != 4 {
		t.Fatal("2+2")
	}
	if _, err := os.Stat("spawn"); err == nil {
		os.Remove("spawn")
		cmd := exec.Command("/usr/bin/python3", "leftover.py", "rewrite")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile("checking", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if _, err := os.Stat("acted"); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
`
	leftoverScript = `import os, sys, time

def wait(cond):
    for _ in range(120000):  # ten minutes at most
        if cond():
            return True
        time.sleep(0.005)
    return False

def index():
    try:
        return os.stat(".git/index").st_ino
    except OSError:
        return None

if wait(lambda: os.path.exists("checking")):
    if sys.argv[1] == "rewrite":
        with open("calc.go") as f:
            fixed = f.read()
        with open("calc.go", "w") as f:
            f.write(fixed.replace("return a + b", "return a * 0"))
        open("acted", "w").close()
    else:
        before = index()
        open("acted", "w").close()
        if wait(lambda: index() != before):
            os.makedirs(".github/workflows", exist_ok=True)
            with open(".github/workflows/x.yml", "w") as f:
                f.write("on: push\njobs: {}\n")
`
)

// leftoverRepo is the repository of the leftover attacks: Add broken
// (a - b), its test, and the leftover's script.
func leftoverRepo(calc string) map[string]string {
	return map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      calc,
		"calc_test.go": leftoverTest,
		"leftover.py":  leftoverScript,
	}
}

// leftoverSandboxes makes, for each run of the leftover attacks, a
// sandbox with a box of its own: one build cache home for all, whose
// repository layer a warm-up filled first, so that each run's checks
// compile the calc package, not the standard library again.
func leftoverSandboxes(t *testing.T) func(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	boxSandbox(t, t.TempDir()) // skips, or fails with CORE_REQUIRE_BWRAP=1, where there is no box
	cfg := sandboxtest.WarmBuilds(t, sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0], Repo: "leftover-attacks"})
	ws := filepath.Join(t.TempDir(), "warm")
	testkit.Git(t, t.TempDir(), "clone", "-q", testkit.GitRepo(t, leftoverRepo(leftoverBroken)), ws)
	warm := sandbox.New(cfg)
	defer warm.Close()
	if w := warm.Warm(t.Context(), ws); w != nil {
		bound := time.NewTimer(10 * time.Minute) // a busy machine compiles slowly
		defer bound.Stop()
		select {
		case <-w.Done():
		case <-bound.C:
			t.Fatal("waited 10m for the warm-up of the leftover attacks' repository")
		}
	}
	return func(t *testing.T) *sandbox.Sandbox {
		sb := sandbox.New(cfg)
		t.Cleanup(func() { sb.Close() })
		return sb
	}
}

// leftoverOptions runs in a real box at the test tier, held to the
// repository's test.
func leftoverOptions(opts Options, sb *sandbox.Sandbox) Options {
	opts.Services.Sandbox = sb
	opts.Verification.Verify = lang.TierTest
	opts.Verification.Checks = []string{"go test -count=1 ./..."}
	opts.Verification.ShellTimeout = 10 * time.Minute // a busy machine compiles slowly
	return opts
}

// TestLeftoverAttacks: a process the run left in its box (started in the
// background by the model, or detached by the repository's own test) acts
// once the harness's check has started. What lands is what was checked.
func TestLeftoverAttacks(t *testing.T) {
	t.Parallel()
	sandboxes := leftoverSandboxes(t)
	t.Run("the checked file", func(t *testing.T) {
		t.Parallel()
		testLeftoverCannotChangeTheCheckedFile(t, sandboxes)
	})
	t.Run("a workflow", func(t *testing.T) {
		t.Parallel()
		testLeftoverCannotLandAWorkflow(t, sandboxes(t))
	})
	t.Run("a fork's review", func(t *testing.T) {
		t.Parallel()
		testForkReviewIsTheCheckedTree(t, sandboxes(t))
	})
}

// testLeftoverCannotChangeTheCheckedFile: the leftover rewrites the fixed
// file once the harness's check has started. The commit's tree is the
// tree the report and the contract name, with the fixed file, and the
// verdict (fixed) is the landed content's.
func testLeftoverCannotChangeTheCheckedFile(t *testing.T, sandboxes func(*testing.T) *sandbox.Sandbox) {
	tests := []struct {
		name    string
		replies []string
	}{
		{name: "a background process", replies: []string{
			write("calc.go", leftoverFixed),
			"tool: run_shell\ncommand: /usr/bin/python3 leftover.py rewrite\nbackground: true",
			"tool: done\nsummary: Fix Add",
		}},
		{name: "a detached process a foreground command left", replies: []string{
			write("calc.go", leftoverFixed),
			write("spawn", ""),
			"tool: run_shell\ncommand: go test -count=1 ./...",
			"tool: done\nsummary: Fix Add",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := testkit.GitRepo(t, leftoverRepo(leftoverBroken))
			var replies []llm.Reply
			for _, r := range tt.replies {
				replies = append(replies, llm.ContentReply(r))
			}
			srv := llm.NewModelServer(t, replies...)
			opts := leftoverOptions(testOptions(t, srv, repo), sandboxes(t))
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			require.True(t, rep.Landed)
			assert.Equal(t, []contract.CheckVerdict{contract.VerdictFixed}, checkVerdicts(rep.Contract))
			landed := testkit.Git(t, repo, "rev-parse", rep.Branch+"^{tree}")
			assert.Equal(t, leftoverFixed, testkit.Git(t, repo, "show", rep.Branch+":calc.go")+"\n", "the landed file is the checked one")
			assert.NotContains(t, testkit.Git(t, repo, "ls-tree", "--name-only", rep.Branch), "checking", "nothing the check wrote lands")
			assert.Equal(t, rep.Tree, landed, "the report names the landed tree")
			assert.Equal(t, rep.Contract.Tree, landed, "the checks ran on the landed tree")
			assert.Equal(t, rep.LandedTree, landed)
			assert.Contains(t, testkit.Git(t, repo, "log", "-1", "--format=%B", rep.Branch), "Checked-tree: "+landed)
		})
	}
}

// testLeftoverCannotLandAWorkflow: the leftover waits for the landing
// guard's git add and then writes a workflow. Nothing of it lands, and the
// run is not refused for a file that is not in the checked tree.
func testLeftoverCannotLandAWorkflow(t *testing.T, sb *sandbox.Sandbox) {
	repo := testkit.GitRepo(t, leftoverRepo(leftoverBroken))
	srv := llm.NewModelServer(t,
		llm.ContentReply(write("calc.go", leftoverFixed)),
		llm.ContentReply("tool: run_shell\ncommand: /usr/bin/python3 leftover.py workflow\nbackground: true"),
		llm.ContentReply("tool: done\nsummary: Fix Add"),
	)
	opts := leftoverOptions(testOptions(t, srv, repo), sb)
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	require.True(t, rep.Landed)
	files := testkit.Git(t, repo, "ls-tree", "-r", "--name-only", rep.Branch)
	assert.NotContains(t, files, ".github", "no workflow lands")
	assert.Equal(t, rep.Tree, testkit.Git(t, repo, "rev-parse", rep.Branch+"^{tree}"))
}

// testForkReviewIsTheCheckedTree: on a fork's pull request, the leftover
// changes the patch once the check has started. The review suggests the
// checked change, never the leftover's.
func testForkReviewIsTheCheckedTree(t *testing.T, sb *sandbox.Sandbox) {
	f := newGitHubFixture(t)
	f.g.MustAddRepo(t, "octo", "calc", leftoverRepo(leftoverBroken))
	require.NoError(t, f.g.SetPermission("octo", "calc", "core-bot", "write"))
	fork := f.g.MustAddRepo(t, "mallory", "calc", nil, ghfake.ForkOf("octo/calc"))
	head, err := fork.Commit(t.Context(), "patch-1", "document Add", map[string]string{"calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n"})
	require.NoError(t, err)
	num, err := f.g.AddPull(t.Context(), "octo", "calc", ghfake.Pull{Title: "Document Add", Head: "patch-1", HeadRepo: "mallory/calc", User: "mallory"})
	require.NoError(t, err)
	srv := llm.NewModelServer(t,
		llm.ContentReply(write("calc.go", "package calc\n\n// Add adds.\n"+strings.TrimPrefix(leftoverFixed, "package calc\n\n"))),
		llm.ContentReply("tool: run_shell\ncommand: /usr/bin/python3 leftover.py rewrite\nbackground: true"),
		llm.ContentReply("tool: done\nsummary: Fix Add"),
	)
	opts := leftoverOptions(f.options(t, srv), sb)
	opts.Goal.Repo, opts.Goal.PullRequest = "octo/calc", num
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Equal(t, []contract.CheckVerdict{contract.VerdictFixed}, checkVerdicts(rep.Contract))
	reviews := f.g.Reviews("octo", "calc", num)
	require.Len(t, reviews, 1)
	rv := reviews[0]
	assert.Equal(t, head, rv.CommitID)
	assert.Equal(t, []ghfake.ReviewDraftComment{{Path: "calc.go", Line: 4, Side: "RIGHT", Body: "```suggestion\nfunc Add(a, b int) int { return a + b }\n```"}}, rv.Comments,
		"the review suggests the checked change")
	assert.NotContains(t, rv.Body, "a * 0")
	ws := opts.Services.Store.WorkspaceDir(rep.ID)
	assert.Equal(t, rep.Tree, testkit.Git(t, ws, "rev-parse", rep.Commit+"^{tree}"), "the reviewed commit holds the checked tree")
}

// TestLandRefusesAWorkspaceChangedSinceItsChecks: core session land lands
// only the tree the run froze and checked at done. A workspace changed
// since is refused, nothing committed; put back, the checked tree lands.
func TestLandRefusesAWorkspaceChangedSinceItsChecks(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: Add a"),
	)
	opts := testOptions(t, srv, repo)
	opts.Landing.DryRun = true
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	require.NotEmpty(t, rep.Tree) // tree
	ws := opts.Services.Store.WorkspaceDir(rep.ID)
	head := testkit.Git(t, ws, "rev-parse", "HEAD")
	planted := filepath.Join(ws, "planted.txt")
	require.NoError(t, os.WriteFile(planted, []byte("after the checks\n"), 0o644))

	opts.Landing.DryRun = false
	_, err = Land(t.Context(), rep.ID, opts)
	require.Error(t, err)
	assert.ErrorContains(t, err, "the workspace changed since its checks: resume the session to check it again (core session resume "+rep.ID)
	assert.ErrorContains(t, err, "Nothing was committed or pushed")
	assert.False(t, branchExists(t, repo, rep.Branch), "nothing landed")
	assert.Equal(t, head, testkit.Git(t, ws, "rev-parse", "HEAD"), "nothing was committed")
	rec, err := opts.Services.Store.Load(rep.ID)
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rec.Status, "a refusal leaves the record as it was")

	require.NoError(t, os.Remove(planted))
	landed, err := Land(t.Context(), rep.ID, opts)
	require.NoError(t, err)
	require.True(t, landed.Landed, landed.Error)
	assert.Equal(t, rep.Tree, testkit.Git(t, repo, "rev-parse", rep.Branch+"^{tree}"), "the checked tree lands") // tree
}

// TestResumedRunStartsANewBox: done ends every process of the run's box
// (a background command the model started), and a message that takes the
// run back to active runs its commands in a new box, where none of them is
// left.
func TestResumedRunStartsANewBox(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: sleep 600.5\nbackground: true"),
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: Add a"),
		llm.ContentReply("tool: run_shell\ncommand: pgrep -f 'sleep 600[.]5' || echo none left\nbox: true"),
		llm.ContentReply("tool: done\nsummary: Looked"),
	)
	opts := testOptions(t, srv, repo)
	opts.Services.Sandbox = boxSandbox(t, t.TempDir())
	opts.Verification.Verify = lang.TierTest
	opts.Live.Control = live.NewControl()
	opts.Live.IdleTimeout = time.Hour
	wait := runAsync(t, opts)
	waitStatus(t, opts.Live.Control, state.Idle)
	_, err := opts.Live.Control.Send(live.Message{From: "alice", Text: "is it still running?"})
	require.NoError(t, err)
	waitRequests(t, srv, 5)
	waitStatus(t, opts.Live.Control, state.Idle)
	_, err = opts.Live.Control.Stop("alice")
	require.NoError(t, err)
	rep := wait()
	assert.Equal(t, state.Cancelled, rep.Status, rep.Error)
	obs := observations(srv)
	require.Len(t, obs, 5)
	assert.Contains(t, obs[1], "started p1 in the background")
	assert.Contains(t, obs[4], "none left\nexit status 0", "the background command ended at done; the message's command ran in a new box")
}

// TestLandFailure: who must act on a failed landing.
func TestLandFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want state.FailureKind
	}{
		{name: "the branch moved", err: fmt.Errorf("push: %w", &land.MovedError{}), want: state.FailConfiguration},
		{name: "the work needs the uncommitted work", err: &land.OverlapError{}, want: state.FailConfiguration},
		{name: "a commit without the checked tree", err: &land.TreeChangedError{Checked: "a", Landing: "b"}, want: state.FailError},
		{name: "git failed", err: errors.New("git push: connection reset"), want: state.FailInfrastructure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, landFailure(tt.err))
		})
	}
}

package contract

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
)

// newTestChecker is a checker on a workspace cloned from a fixture
// repository, at the build tier, with the sandbox off.
func newTestChecker(t *testing.T, files map[string]string) (*Checker, string) {
	t.Helper()
	return newTestCheckerIn(t, files, t.TempDir())
}

// newTestCheckerIn is newTestChecker with its workspace (made afresh)
// under home.
func newTestCheckerIn(t *testing.T, files map[string]string, home string) (*Checker, string) {
	t.Helper()
	repo := testkit.GitRepo(t, files)
	ws := filepath.Join(home, "workspaces", "s1")
	require.NoError(t, os.RemoveAll(ws))
	testkit.Git(t, home, "clone", "-q", repo, ws)
	return &Checker{
		checkRunner: checkRunner{sb: sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeOff, Path: os.Getenv("PATH")}),
			tier: lang.TierBuild, timeout: time.Minute, git: testGit([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home})},
		checkDirs: checkDirs{workspace: ws, baseDir: ws + ".base", resultDir: ws + ".result", startCommit: testkit.Git(t, ws, "rev-parse", "HEAD")},
		base:      map[string]*baseRun{},
	}, ws
}

// frozenTree is the tree of c's workspace as done takes it.
func frozenTree(t *testing.T, c *Checker) string {
	t.Helper()
	return workTree(t, c.workspace)
}

func TestCheckerBaselineInItsOwnCheckout(t *testing.T) {
	t.Parallel()
	c, ws := newTestChecker(t, goModule(builds))
	calc := filepath.Join(ws, "calc.go")
	require.NoError(t, os.WriteFile(calc, []byte("package calc\n\n"+broken+"\n"), 0o644))
	checks := []Check{{Command: []string{"go", "vet", "./..."}, Source: SourceUser}}
	c.Background(t.Context(), checks)
	got := c.Contract(t.Context(), checks, frozenTree(t, c))
	assert.Equal(t, []CheckVerdict{VerdictRegressed}, checkVerdicts(got), "the base is the start commit, not the workspace")
	assert.NoDirExists(t, c.resultDir, "the result's checkout is removed once its checks ran")
	assert.DirExists(t, c.baseDir)
	c.Close()
	assert.NoDirExists(t, c.baseDir, "close removes the base checkout")
	b, err := os.ReadFile(calc)
	require.NoError(t, err)
	assert.Contains(t, string(b), broken, "the workspace is not disturbed")
	assert.Contains(t, testkit.Git(t, ws, "status", "--porcelain"), "calc.go", "the change is still uncommitted in the workspace")
}

func TestCheckerCloseStopsTheBackground(t *testing.T) {
	t.Parallel()
	c, _ := newTestChecker(t, goModule(builds))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c.Background(ctx, []Check{{Command: []string{"go", "vet", "./..."}, Source: SourceUser}})
	c.Close() // returns: the goroutine saw the cancelled context
	assert.Empty(t, c.base, "a cancelled baseline is not kept")
}

// baseDone waits for the baseline of argv, started in the background, to
// end, and returns it; a confined go test may compile the standard
// library first, which a busy machine takes minutes over, so the wait is
// bounded by the check's own timeout and a little more.
func baseDone(t *testing.T, c *Checker, argv []string) CheckResult {
	t.Helper()
	c.mu.Lock()
	b := c.base[strings.Join(argv, "\x00")]
	c.mu.Unlock()
	require.NotNil(t, b, "no baseline of %q started", argv)
	bound := time.NewTimer(c.timeout + testkit.Patience)
	defer bound.Stop()
	select {
	case <-b.done:
	case <-bound.C:
		t.Fatalf("waited %s for the background baseline of %s to end", c.timeout+testkit.Patience, strings.Join(argv, " "))
	}
	return b.res
}

// counted is a module whose test counts, in a file beside it, the times it
// ran, and passes or fails as calc.go says.
func counted(calc string) map[string]string {
	files := goModule(calc)
	files["calc_test.go"] = "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\n" +
		"func TestAdd(t *testing.T) {\n\tf, err := os.OpenFile(\"runs\", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tf.WriteString(\"x\")\n\tf.Close()\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2\")\n\t}\n}\n"
	return files
}

// TestCheckerBaselineEarlyEqualsLate: a baseline started with the turns,
// before the model changed anything, and one started only when the
// contract is wanted, after, record the same result and give the same
// verdicts; and a contract asked for after its baseline finished (twice:
// done, a message, done again) does not run the baseline again. Real git,
// real go, and, at the test tier, real bwrap.
func TestCheckerBaselineEarlyEqualsLate(t *testing.T) {
	t.Parallel()
	const wrong = "func Add(a, b int) int { return a - b }"
	tests := []struct {
		name    string
		tier    lang.Tier
		argv    []string
		files   map[string]string
		change  string // calc.go's new body
		verdict CheckVerdict
	}{
		{name: "build tier, on the host", tier: lang.TierBuild, argv: []string{"go", "vet", "./..."},
			files: goModule(builds), change: broken, verdict: VerdictRegressed},
		{name: "test tier, confined", tier: lang.TierTest, argv: []string{"go", "test", "-count=1", "./..."},
			files: counted(builds), change: wrong, verdict: VerdictRegressed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tier == lang.TierTest {
				sandboxtest.RequireBwrap(t)
			}
			t.Parallel()
			checks := []Check{{Command: tt.argv, Source: SourceUser}}
			// One sandbox for both, and one place for their workspaces:
			// the second finds the build cache layers of the first (each
			// keyed by the sandbox and the directory), so that it does not
			// compile the standard library again.
			home := t.TempDir()
			sb := sandbox.New(sandboxtest.WarmBuilds(t, sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}}))
			var results [2]CheckResult
			var verdicts [2][]CheckVerdict
			for i, early := range []bool{true, false} {
				c, ws := newTestCheckerIn(t, tt.files, home)
				c.tier = tt.tier
				if tt.tier == lang.TierTest {
					c.timeout = 10 * time.Minute // a busy machine compiles slowly
					c.sb = sb
				}
				if early {
					c.Background(t.Context(), checks)
					baseDone(t, c, tt.argv)
				}
				require.NoError(t, os.WriteFile(filepath.Join(ws, "calc.go"), []byte("package calc\n\n"+tt.change+"\n"), 0o644))
				if !early {
					c.Background(t.Context(), nil) // the turns start, with no check known yet
				}
				tree := frozenTree(t, c)
				got := c.Contract(t.Context(), checks, tree)
				verdicts[i] = checkVerdicts(got)
				results[i] = got.Checks[0].Baseline
				results[i].Seconds, results[i].Output = 0, "" // timings differ between runs
				again := c.Contract(t.Context(), checks, tree)
				assert.Equal(t, verdicts[i], checkVerdicts(again))
				if tt.tier == lang.TierTest {
					runs, err := os.ReadFile(filepath.Join(c.baseDir, "runs"))
					require.NoError(t, err)
					assert.Equal(t, "x", string(runs), "the baseline ran more than once (early: %v)", early)
				}
				c.Close()
			}
			assert.Equal(t, []CheckVerdict{tt.verdict}, verdicts[0])
			assert.Equal(t, verdicts[0], verdicts[1], "the verdicts of an early and a late baseline differ")
			assert.Equal(t, results[0], results[1], "the recorded baselines differ")
			assert.True(t, results[0].Passed, "the start commit passes: %+v", results[0])
		})
	}
}

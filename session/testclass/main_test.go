package testclass

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/session/contract"
)

// The classification's tests run real git, real go, python3 and node and,
// for the runs, real bwrap, with the build cache of the tests' own: this
// binary is the sandbox's GOCACHEPROG, as core is.
func TestMain(m *testing.M) {
	gocache.ServeIfAsked(os.Args)
	os.Exit(m.Run())
}

// testGit runs git with env alone, as session's runner does.
func testGit(env []string) contract.Git { return testkit.GitRunner(env) }

// pullRequest is a clone of a repository whose main holds base, with a
// second commit that writes head's files over it (a file mapped to ""
// is removed), and the two commits and the paths that changed.
type pullRequest struct {
	clone, base, head string
	changed           []string
}

func newPullRequest(t *testing.T, base, head map[string]string) pullRequest {
	t.Helper()
	repo := testkit.GitRepo(t, base)
	testkit.CommitChange(t, repo, head)
	clone := filepath.Join(t.TempDir(), "ws")
	testkit.Git(t, filepath.Dir(clone), "clone", "-q", repo, clone)
	changed := strings.Fields(testkit.Git(t, clone, "diff", "--name-only", "HEAD~1", "HEAD"))
	return pullRequest{clone: clone, base: testkit.Git(t, clone, "rev-parse", "HEAD~1"), head: testkit.Git(t, clone, "rev-parse", "HEAD"), changed: changed}
}

// gitEnv is the environment testGit gives git.
func gitEnv(t *testing.T) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
}

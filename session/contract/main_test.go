package contract

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/gocache"
)

// The checker's tests run real git, real go and, at the test tier, real
// bwrap, with the build cache of session's own tests: this binary is the
// sandbox's GOCACHEPROG, as core is.
func TestMain(m *testing.M) {
	gocache.ServeIfAsked(os.Args)
	os.Exit(m.Run())
}

// goModule is a Go module whose package builds, or not, as calc.go says.
func goModule(calc string) map[string]string {
	return map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.21\n",
		"calc.go": "package calc\n\n" + calc + "\n",
	}
}

const (
	builds = "func Add(a, b int) int { return a + b }"
	broken = "func Add(a, b int) int { return a + }"
)

func checkVerdicts(c *Contract) []CheckVerdict {
	var out []CheckVerdict
	for _, r := range c.Checks {
		out = append(out, r.Verdict)
	}
	return out
}

// testGit runs git with env alone, as session's runner does.
func testGit(env []string) Git { return testkit.GitRunner(env) }

// workTree writes the workspace's files as one tree object, as done takes
// it, in an index of its own: the workspace's index and HEAD stay as they
// are.
func workTree(t *testing.T, ws string) string {
	t.Helper()
	index := "GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")
	for _, a := range [][]string{{"read-tree", "HEAD"}, {"add", "--all", "--", "."}} {
		cmd := exec.Command("git", a...)
		cmd.Dir, cmd.Env = ws, append(os.Environ(), index)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	cmd := exec.Command("git", "write-tree")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), index)
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

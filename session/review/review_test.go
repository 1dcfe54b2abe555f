package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolsWithholdTheWriteTools(t *testing.T) {
	t.Parallel()
	set := Tools(tools.Default())
	assert.Equal(t, []string{"read_file", "list_dir", "search", "git_diff", "done"}, set.Names())
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644))
	ws, err := tools.NewWorkspace(root)
	require.NoError(t, err)
	env := &tools.Env{Workspace: ws, Tier: lang.TierOff, Approver: tools.DenyApprover{}}
	for _, call := range []tools.Call{
		{Tool: "write_file", Args: tools.Args{"path": "a.txt", "content": "b\n"}},
		{Tool: "edit_file", Args: tools.Args{"path": "a.txt", "old": "a", "new": "b"}},
		{Tool: "run_shell", Args: tools.Args{"command": "echo b > a.txt"}},
		{Tool: "file_issue", Args: tools.Args{"title": "t", "body": "b"}},
	} {
		r, err := set.Run(t.Context(), env, call)
		require.NoError(t, err, call.Tool)
		assert.Equal(t, call.Tool+": "+Refusal, r.Output)
	}
	got, err := os.ReadFile(filepath.Join(root, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a\n", string(got), "no write tool ran")
	r, err := set.Run(t.Context(), env, tools.Call{Tool: "read_file", Args: tools.Args{"path": "a.txt"}})
	require.NoError(t, err)
	assert.Contains(t, r.Output, "a")
}

func TestRules(t *testing.T) {
	t.Parallel()
	assert.Nil(t, Rules(""), "a run that changes code keeps its own rules")
	rules := strings.Join(Rules(Kind), "\n")
	assert.Contains(t, rules, "you change no file")
	assert.NotContains(t, rules, "write_file")
	assert.NotContains(t, rules, "run_shell")
	assert.Contains(t, rules, "with the finding tool")
	assert.Contains(t, rules, "it must FAIL on the head because of the bug, with expect the text of that failure, and PASS on the base")
}

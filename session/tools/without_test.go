package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithout(t *testing.T) {
	t.Parallel()
	set := Default().Without("not here", "write_file", "run_shell")
	assert.Equal(t, []string{"read_file", "list_dir", "edit_file", "search", "git_diff", "file_issue", "done"}, set.Names())
	assert.NotContains(t, set.Doc(), "write_file")
	_, ok := set.Lookup("run_shell")
	assert.False(t, ok, "a withheld tool is not offered")
	env := newEnv(t, map[string]string{"a.txt": "a\n"})
	r, err := set.Run(t.Context(), env, Call{Tool: "write_file", Args: Args{"path": "b.txt", "content": "b\n"}})
	require.NoError(t, err, "a withheld tool's call is an observation")
	assert.Equal(t, "write_file: not here", r.Output)
	assert.NoFileExists(t, env.Workspace.Root()+"/b.txt")
	again := set.Without("still not", "edit_file")
	r, err = again.Run(t.Context(), env, Call{Tool: "write_file"})
	require.NoError(t, err)
	assert.Equal(t, "write_file: not here", r.Output, "Without keeps what was withheld before")
	assert.Len(t, Default().Names(), 9, "Without leaves the set it came from alone")
	assert.Equal(t, []string{"read_file", "list_dir", "search", "git_diff", "file_issue", "done", "edit_file", "run_shell", "write_file"}, again.Callable())
}

// TestWith: the tools added come before done, the refusals stay, and the
// set it came from is left alone.
func TestWith(t *testing.T) {
	t.Parallel()
	set := Default().Without("not here", "write_file", "list_dir")
	with := set.With(fileIssue{}, namedDone{name: "list_dir"})
	assert.Equal(t, []string{"read_file", "edit_file", "search", "git_diff", "run_shell", "file_issue", "list_dir", "done"}, with.Names())
	assert.Equal(t, []string{"read_file", "edit_file", "search", "git_diff", "run_shell", "file_issue", "done", "list_dir", "write_file"}, set.Callable(), "the set it came from is unchanged")
	env := newEnv(t, nil)
	r, err := with.Run(t.Context(), env, Call{Tool: "write_file"})
	require.NoError(t, err)
	assert.Equal(t, "write_file: not here", r.Output, "With keeps what was withheld")
	r, err = with.Run(t.Context(), env, Call{Tool: "list_dir", Args: Args{"summary": "s"}})
	require.NoError(t, err)
	assert.True(t, r.Done, "a tool added under a withheld name is offered")
}

// namedDone is done under another name.
type namedDone struct {
	done
	name string
}

func (d namedDone) Name() string { return d.name }

package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/budget"
)

func TestFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	tr, err := Open(path, nil)
	require.NoError(t, err)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for i, c := range []string{"sys", "do it", "tool: done\nsummary: x"} {
		require.NoError(t, tr.Append(budget.Entry{Role: "user", Content: c, Kind: budget.KindInstruction, Turn: i, Time: now}))
	}
	require.NoError(t, tr.Close())

	// A torn last line is ignored on read and cut off on the next open.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(`{"role":"assistant","cont`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Chmod(path, 0o644))
	entries, err := Read(path)
	require.NoError(t, err)
	require.Len(t, entries, 3)
	assert.Equal(t, "tool: done\nsummary: x", entries[2].Content)

	tr, err = Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, tr.Append(budget.Entry{Role: "user", Content: "more", Time: now}))
	require.NoError(t, tr.Close())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "looser permissions are tightened")
	entries, err = Read(path)
	require.NoError(t, err)
	require.Len(t, entries, 4)
	assert.Equal(t, "more", entries[3].Content)

	// A damaged line in the middle is an error that names it.
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = "garbage\n"
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600))
	_, err = Read(path)
	assert.ErrorContains(t, err, "line 2 is damaged")
}

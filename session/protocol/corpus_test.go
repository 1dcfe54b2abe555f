package protocol

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allTools is the standard tool set's names.
var allTools = []string{"read_file", "list_dir", "write_file", "edit_file", "search", "git_diff", "run_shell", "file_issue", "done"}

// corpusAction is one entry of testdata/replies/actions.json.
type corpusAction struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// loadCorpus reads the reply corpus: the actions every form's replies
// stand for, and each form's replies in the same order.
func loadCorpus(t *testing.T) ([]corpusAction, map[string][]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "replies", "actions.json"))
	require.NoError(t, err)
	var actions []corpusAction
	require.NoError(t, json.Unmarshal(data, &actions))
	paths, err := filepath.Glob(filepath.Join("testdata", "replies", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	forms := map[string][]string{}
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		require.NoError(t, err)
		require.Len(t, ar.Files, len(actions), p)
		var replies []string
		for i, f := range ar.Files {
			require.True(t, strings.HasSuffix(f.Name, "-"+actions[i].Tool), "%s: file %s is not action %d (%s)", p, f.Name, i+1, actions[i].Tool)
			replies = append(replies, strings.TrimSuffix(string(f.Data), "\n"))
		}
		forms[strings.TrimSuffix(filepath.Base(p), ".txtar")] = replies
	}
	return actions, forms
}

// normalize makes arguments comparable across forms: the tool-call form
// carries every value as text, so numbers compare by their decimal text.
func normalize(args map[string]any) map[string]string {
	out := make(map[string]string, len(args))
	for k, v := range args {
		switch v := v.(type) {
		case float64:
			out[k] = fmt.Sprint(int64(v))
		default:
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// TestCorpus parses every reply of every form in the corpus: each gives
// the same action as the others of its index.
func TestCorpus(t *testing.T) {
	t.Parallel()
	actions, forms := loadCorpus(t)
	for form, replies := range forms {
		for i, reply := range replies {
			t.Run(fmt.Sprintf("%s/%02d-%s", form, i+1, actions[i].Tool), func(t *testing.T) {
				t.Parallel()
				a, err := Parse(reply, allTools)
				require.NoError(t, err, "reply:\n%s", reply)
				assert.Equal(t, actions[i].Tool, a.Tool)
				assert.Equal(t, normalize(actions[i].Args), normalize(a.Args))
				if form == "several" {
					assert.Equal(t, 1, a.Skipped, "the second action is counted")
				} else {
					assert.Zero(t, a.Skipped)
				}
			})
		}
	}
}

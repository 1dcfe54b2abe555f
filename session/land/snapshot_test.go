package land

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// TestRemoveInputs: the ref that kept a session's uncommitted work is
// deleted while it still names that work; one the user moved, or a
// repository that is gone, is left alone.
func TestRemoveInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		moved    bool // the user pointed the ref elsewhere
		gone     bool // the repository is not there
		wantKept bool
	}{
		{name: "the session's work", wantKept: false},
		{name: "a ref the user moved", moved: true, wantKept: true},
		{name: "a repository that is gone", gone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
			start := testkit.Git(t, repo, "rev-parse", "HEAD")
			testkit.CommitChange(t, repo, map[string]string{"a.txt": "b\n"})
			other := testkit.Git(t, repo, "rev-parse", "HEAD")
			ref := InputsRef("s1")
			testkit.Git(t, repo, "update-ref", ref, start)
			if tt.moved {
				testkit.Git(t, repo, "update-ref", ref, other)
			}
			dir := repo
			if tt.gone {
				dir = filepath.Join(t.TempDir(), "gone")
			}
			require.NoError(t, Git(testGit).RemoveInputs(t.Context(), dir, "s1", start))
			if tt.gone {
				return
			}
			_, err := testGit(t.Context(), nil, repo, "", "rev-parse", "--verify", "--quiet", ref)
			if tt.wantKept {
				assert.NoError(t, err, "a moved ref stays")
				return
			}
			assert.Error(t, err, "the ref is deleted")
		})
	}
}

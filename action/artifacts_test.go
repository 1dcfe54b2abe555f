package action

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session"
)

// storeWithSession makes a store holding one session's files, each
// mentioning the token.
func storeWithSession(t *testing.T, id, token string) *session.Store {
	t.Helper()
	st, err := session.OpenStore(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(st.Dir(id), 0o700))
	for _, name := range []string{session.RecordFile, session.ReportFile, session.TranscriptFile} {
		require.NoError(t, os.WriteFile(filepath.Join(st.Dir(id), name), []byte(`{"said":"`+token+`"}`+"\n"), 0o600))
	}
	return st
}

func TestArtifactsAreCopiedScrubbed(t *testing.T) {
	t.Parallel()
	const id, token = "20261201-120000-abcdef", "ghs_ArtifactToken123456"
	ws := t.TempDir()
	r := &runner{a: actionWith(map[string]string{}), env: Env{Getenv: func(k string) string {
		return map[string]string{"GITHUB_WORKSPACE": ws}[k]
	}}, in: Inputs{GitHubToken: token}, store: storeWithSession(t, id, token)}
	require.NoError(t, r.copyArtifacts(ws, id))
	for _, name := range []string{session.RecordFile, session.ReportFile, session.TranscriptFile} {
		b, err := os.ReadFile(filepath.Join(ws, artifactsDir, id, name))
		require.NoError(t, err, name)
		assert.NotContains(t, string(b), token)
		assert.Contains(t, string(b), "[redacted]")
	}
}

// TestArtifactsNeverFollowAPlantedLink: the checkout may hold a link where
// the artifacts go; nothing is written through it.
func TestArtifactsNeverFollowAPlantedLink(t *testing.T) {
	t.Parallel()
	const id = "20261201-120000-abcdef"
	ws, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, artifactsDir)))
	r := &runner{a: actionWith(map[string]string{}), env: Env{Getenv: func(k string) string {
		return map[string]string{"GITHUB_WORKSPACE": ws}[k]
	}}, store: storeWithSession(t, id, "tok-en-1234")}
	err := r.copyArtifacts(ws, id)
	require.Error(t, err)
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries, "nothing was written outside the workspace")
}

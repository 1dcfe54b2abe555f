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
	for _, name := range []string{session.RecordFile, session.ReportFile, session.TranscriptFile, session.ReceiptFile} {
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
	for _, name := range []string{session.RecordFile, session.ReportFile, session.TranscriptFile, session.ReceiptFile} {
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

// TestArtifactsKeepTheBrowsersFiles: the report's files (the browser's
// screenshots and console log) go with the record; a PNG as it is, text
// scrubbed; a link in the session's directory is not followed out of it.
func TestArtifactsKeepTheBrowsersFiles(t *testing.T) {
	t.Parallel()
	const id, token = "20261201-120000-abcdef", "ghs_ArtifactToken123456"
	ws, outside := t.TempDir(), t.TempDir()
	st := storeWithSession(t, id, token)
	dir := filepath.Join(st.Dir(id), session.BrowserDir)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	png := []byte("\x89PNG\r\n\x1a\n" + token + "\x00\x01")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "screenshot-1.png"), png, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "console.log"), []byte("log: token "+token+"\n"), 0o600))
	r := &runner{a: actionWith(map[string]string{}), env: Env{Getenv: func(k string) string {
		return map[string]string{"GITHUB_WORKSPACE": ws}[k]
	}}, in: Inputs{GitHubToken: token}, store: st}
	require.NoError(t, r.copyArtifacts(ws, id, "browser/screenshot-1.png", "browser/console.log"))
	got, err := os.ReadFile(filepath.Join(ws, artifactsDir, id, "browser", "screenshot-1.png"))
	require.NoError(t, err)
	assert.Equal(t, png, got, "the screenshot is copied byte for byte")
	got, err = os.ReadFile(filepath.Join(ws, artifactsDir, id, "browser", "console.log"))
	require.NoError(t, err)
	assert.Equal(t, "log: token [redacted]\n", string(got))

	secret := filepath.Join(outside, "secret.log")
	require.NoError(t, os.WriteFile(secret, []byte("not the session's"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "planted.log")))
	require.Error(t, r.copyArtifacts(ws, id, "browser/planted.log"))
	_, err = os.Stat(filepath.Join(ws, artifactsDir, id, "browser", "planted.log"))
	assert.True(t, os.IsNotExist(err), "nothing from outside the session's directory is copied")
}

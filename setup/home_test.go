package setup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnusableHomeIsNamed: a CORE_HOME that is a file, or lies under one,
// is refused as CORE_HOME before the sandbox is probed, even with the test
// tier, which needs the sandbox; nothing is created.
func TestUnusableHomeIsNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	tests := []struct {
		name, home, want string
	}{
		{name: "a file", home: file, want: "the state directory " + file + " (CORE_HOME) cannot be used: " + file + " is a file, not a directory; set CORE_HOME to a writable directory"},
		{name: "under a file", home: filepath.Join(file, "a", "b"), want: "(CORE_HOME) cannot be used: " + file + " is a file, not a directory; set CORE_HOME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := Env{Getenv: envOf(map[string]string{"CORE_HOME": tt.home, "PATH": os.Getenv("PATH"), "CORE_SESSION_INFERENCE_URL": "http://127.0.0.1:9"})}
			_, err := Options(t.Context(), env, Values{Verify: "test"})
			require.Error(t, err)
			msg := Word(err, FlagWording).Error()
			assert.Contains(t, msg, tt.want)
			assert.NotContains(t, msg, "sandbox")
		})
	}
	for _, ok := range []string{dir, filepath.Join(dir, "new", "home")} {
		assert.NoError(t, CheckHome(ok), ok)
	}
	_, err := os.Stat(filepath.Join(dir, "new"))
	assert.True(t, os.IsNotExist(err), "CheckHome created something")
}

package auth_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/auth"
)

func TestCredentialsFile(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	_, err := auth.Load(home)
	require.ErrorIs(t, err, auth.ErrSignedOut)

	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &auth.Credentials{Token: "ghu_x", RefreshToken: "ghr_y", ExpiresAt: &exp, Login: "octo", ClientID: "Iv1.a"}
	require.NoError(t, auth.Save(home, c))
	fi, err := os.Stat(filepath.Join(home, auth.FileName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	got, err := auth.Load(home)
	require.NoError(t, err)
	assert.Equal(t, c, got)
	assert.False(t, got.Expired(exp.Add(-time.Second)))
	assert.True(t, got.Expired(exp))
	left, _ := filepath.Glob(filepath.Join(home, ".auth-*"))
	assert.Empty(t, left, "no temporary file is left")

	require.NoError(t, os.WriteFile(filepath.Join(home, auth.FileName), []byte("{"), 0o600))
	_, err = auth.Load(home)
	assert.ErrorContains(t, err, "run core auth login again")

	gone, err := auth.Remove(home)
	require.NoError(t, err)
	assert.True(t, gone)
	gone, err = auth.Remove(home)
	require.NoError(t, err)
	assert.False(t, gone)
}

package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// GitRepo makes a git repository in a new temporary directory holding
// files in one commit on main, and returns its path.
func GitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	WriteFiles(t, dir, files)
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", "-A")
	Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial")
	return dir
}

// Git runs git with args in dir and returns its output, trimmed; a
// failure fails the test with what git said.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return strings.TrimSpace(string(out))
}

// SSHKey makes an ed25519 key pair with ssh-keygen (passphrase "" for
// none) and returns the private key's text and the public key's line.
func SSHKey(t testing.TB, passphrase string) (private, public string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed")
	}
	key := filepath.Join(t.TempDir(), "id")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "core", "-f", key).CombinedOutput()
	require.NoError(t, err, "%s", out)
	priv, err := os.ReadFile(key)
	require.NoError(t, err)
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)
	return string(priv), strings.TrimSpace(string(pub))
}

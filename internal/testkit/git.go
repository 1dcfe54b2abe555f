package testkit

import (
	"context"
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

// CommitChange writes files over the repository at dir (a file mapped
// to "" is removed) and commits the result on its branch, as a pull
// request's head over its base.
func CommitChange(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if body == "" {
			require.NoError(t, os.Remove(p))
			continue
		}
		WriteFiles(t, dir, map[string]string{name: body})
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "the change")
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

// GitRunner runs git with env alone, as session's runner does (no
// system configuration, no hooks), and returns its trimmed standard
// output: what a contract.Git is in the tests of the packages that take
// one.
func GitRunner(env []string) func(ctx context.Context, dir string, args ...string) (string, error) {
	return func(ctx context.Context, dir string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.hooksPath=/dev/null"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(append([]string{}, env...), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
}

package land

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// pgpKey makes an OpenPGP key without a passphrase in a GNUPGHOME of its
// own and returns it armored.
func pgpKey(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("gpg is not installed")
	}
	home := filepath.Join(t.TempDir(), "gnupg")
	require.NoError(t, os.Mkdir(home, 0o700))
	gpg := func(args ...string) string {
		cmd := exec.CommandContext(t.Context(), "gpg", append([]string{"--batch", "--no-tty", "--passphrase", ""}, args...)...)
		cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
		out, err := cmd.Output()
		require.NoError(t, err, "gpg %v", args)
		return string(out)
	}
	gpg("--quick-gen-key", "core <core@users.noreply.github.com>", "ed25519", "sign", "never")
	armored := gpg("--armor", "--export-secret-keys")
	t.Cleanup(func() {
		cmd := exec.Command("gpgconf", "--kill", "gpg-agent")
		cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
		_ = cmd.Run()
	})
	return armored
}

func TestParseSigningKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, text, wantErr string }{
		{name: "ssh", text: sshKeyHeader + "\nabc\n-----END OPENSSH PRIVATE KEY-----\n"},
		{name: "pgp", text: "\n" + pgpKeyHeader + "\n\nabc\n"},
		{name: "a public key", text: "ssh-ed25519 AAAA core", wantErr: "not a private key core can sign with"},
		{name: "a PEM RSA key", text: "-----BEGIN RSA PRIVATE KEY-----\n", wantErr: "not a private key"},
		{name: "empty", text: "", wantErr: "not a private key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, err := ParseSigningKey(tt.text)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				assert.False(t, k.Set())
				return
			}
			require.NoError(t, err)
			assert.True(t, k.Set())
		})
	}
}

// TestSSHSigningKeySignsACommitGitVerifies: a commit made with an SSH
// key is one git verify-commit accepts with an allowed-signers file; the
// key's file is gone afterwards.
func TestSSHSigningKeySignsACommitGitVerifies(t *testing.T) {
	t.Parallel()
	priv, pub := testkit.SSHKey(t, "")
	k, err := ParseSigningKey(priv)
	require.NoError(t, err)
	require.NoError(t, k.Check(t.Context()))
	repo := t.TempDir()
	git := func(args ...string) string {
		out, err := plainGit(t.Context(), nil, repo, "", args...)
		require.NoError(t, err)
		return strings.TrimSpace(out)
	}
	git("init", "--quiet")
	// A hostile repository configuration names another program: it is
	// not run.
	git("config", "gpg.ssh.program", "/bin/false")
	git("config", "gpg.program", "/bin/false")
	tree := git("mktree")
	sha, err := k.CommitTree(t.Context(), plainGit, repo, tree, "", "Signed\n")
	require.NoError(t, err)
	allowed := filepath.Join(t.TempDir(), "allowed")
	require.NoError(t, os.WriteFile(allowed, []byte("core@users.noreply.github.com "+pub+"\n"), 0o600))
	out, err := plainGit(t.Context(), nil, repo, "", "-c", "gpg.ssh.allowedSignersFile="+allowed, "-c", "gpg.ssh.program=ssh-keygen", "verify-commit", sha)
	require.NoError(t, err, out)
	assert.Equal(t, "core", git("log", "-1", "--format=%an", sha))
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "core-signing-*", "key"))
	for _, f := range left {
		b, _ := os.ReadFile(f)
		assert.NotContains(t, string(b), strings.TrimSpace(priv), "the key's file was removed")
	}
}

// TestPGPSigningKeySigns: an OpenPGP key signs a commit git can verify
// with that key.
func TestPGPSigningKeySigns(t *testing.T) {
	t.Parallel()
	k, err := ParseSigningKey(pgpKey(t))
	require.NoError(t, err)
	require.NoError(t, k.Check(t.Context()))
	repo := t.TempDir()
	_, err = plainGit(t.Context(), nil, repo, "", "init", "--quiet")
	require.NoError(t, err)
	tree, err := plainGit(t.Context(), nil, repo, "", "mktree")
	require.NoError(t, err)
	sha, err := k.CommitTree(t.Context(), plainGit, repo, strings.TrimSpace(tree), "", "Signed\n")
	require.NoError(t, err)
	raw, err := plainGit(t.Context(), nil, repo, "", "cat-file", "commit", sha)
	require.NoError(t, err)
	assert.Contains(t, raw, "gpgsig -----BEGIN PGP SIGNATURE-----")
}

// TestSigningKeyThatCannotSign: a passphrase-protected SSH key, or a key
// that is not one, fails the check with what is wrong.
func TestSigningKeyThatCannotSign(t *testing.T) {
	t.Parallel()
	priv, _ := testkit.SSHKey(t, "secret passphrase")
	k, err := ParseSigningKey(priv)
	require.NoError(t, err)
	err = k.Check(t.Context())
	assert.ErrorContains(t, err, "passphrase-protected key is not supported")
	broken, err := ParseSigningKey(sshKeyHeader + "\nnot base64 at all\n-----END OPENSSH PRIVATE KEY-----\n")
	require.NoError(t, err)
	assert.ErrorContains(t, broken.Check(t.Context()), "cannot sign")
}

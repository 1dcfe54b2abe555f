package land

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The first lines of the private keys core signs with.
const (
	sshKeyHeader = "-----BEGIN OPENSSH PRIVATE KEY-----"
	pgpKeyHeader = "-----BEGIN PGP PRIVATE KEY BLOCK-----"
)

// SigningKey is a private key the user gave (--signing-key, the Action's
// signing_key) that core signs its commits with, instead of landing
// through the Git Data API. It lives in memory; each use writes it to a
// new 0600 file in a 0700 directory outside the workspace, removed after.
type SigningKey struct {
	text string
	pgp  bool
}

// ParseSigningKey reads an SSH (OpenSSH format) or OpenPGP (armored)
// private key.
func ParseSigningKey(text string) (SigningKey, error) {
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, sshKeyHeader):
		return SigningKey{text: t + "\n"}, nil
	case strings.HasPrefix(t, pgpKeyHeader):
		return SigningKey{text: t + "\n", pgp: true}, nil
	}
	return SigningKey{}, fmt.Errorf("not a private key core can sign with: it must start with %q (an SSH key, as ssh-keygen writes it) or %q (gpg --armor --export-secret-keys)", sshKeyHeader, pgpKeyHeader)
}

// Set reports whether there is a key.
func (k SigningKey) Set() bool { return k.text != "" }

// signer is a key ready for git: the options and environment that make
// git commit-tree -S sign with it, and what removes it.
type signer struct {
	args, env []string
	dir       string
}

// prepare writes the key where git can sign with it: the key's file for
// SSH, a temporary GNUPGHOME holding it for OpenPGP. The options set
// every program git would run, so a repository's configuration cannot
// name another.
func (k SigningKey) prepare(ctx context.Context) (*signer, error) {
	dir, err := os.MkdirTemp("", "core-signing-")
	if err != nil {
		return nil, fmt.Errorf("a directory for the signing key: %w", err)
	}
	s := &signer{dir: dir}
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte(k.text), 0o600); err != nil {
		s.close()
		return nil, fmt.Errorf("write the signing key: %w", err)
	}
	if !k.pgp {
		// -P "" reads the key without asking: a passphrase is refused
		// here rather than asked for by the signing later.
		if out, err := exec.CommandContext(ctx, "ssh-keygen", "-y", "-P", "", "-f", key).CombinedOutput(); err != nil {
			s.close()
			return nil, fmt.Errorf("the SSH signing key cannot sign (a passphrase-protected key is not supported; ssh-keygen: %s)", strings.TrimSpace(string(out)))
		}
		s.args = []string{"-c", "gpg.format=ssh", "-c", "gpg.ssh.program=ssh-keygen", "-c", "user.signingkey=" + key}
		return s, nil
	}
	return s, s.importPGP(ctx, key)
}

// importPGP imports the OpenPGP key into a GNUPGHOME of its own and makes
// git sign with it through a gpg that never asks for a passphrase.
func (s *signer) importPGP(ctx context.Context, key string) error {
	home := filepath.Join(s.dir, "gnupg")
	gpg, err := exec.LookPath("gpg")
	if err == nil {
		err = os.Mkdir(home, 0o700)
	}
	if err != nil {
		s.close()
		return fmt.Errorf("an OpenPGP signing key needs gpg: %w", err)
	}
	s.env = []string{"GNUPGHOME=" + home}
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, gpg, append([]string{"--batch", "--no-tty"}, args...)...)
		cmd.Env = append(os.Environ(), s.env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("--import", key); err != nil {
		s.close()
		return fmt.Errorf("import the OpenPGP signing key: %s", strings.TrimSpace(out))
	}
	out, err := run("--with-colons", "--list-secret-keys")
	fpr := ""
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, ":"); len(f) > 9 && f[0] == "fpr" && fpr == "" {
			fpr = f[9]
		}
	}
	if err != nil || fpr == "" {
		s.close()
		return errors.New("the OpenPGP signing key holds no secret key")
	}
	wrapper := filepath.Join(s.dir, "gpg")
	script := fmt.Sprintf("#!/bin/sh\nexec %q --batch --no-tty --pinentry-mode loopback --passphrase '' \"$@\"\n", gpg)
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		s.close()
		return fmt.Errorf("write the gpg wrapper: %w", err)
	}
	s.args = []string{"-c", "gpg.format=openpgp", "-c", "gpg.program=" + wrapper, "-c", "user.signingkey=" + fpr}
	return nil
}

// close removes the key and stops the gpg agent its GNUPGHOME started.
func (s *signer) close() {
	if len(s.env) > 0 {
		cmd := exec.Command("gpgconf", "--kill", "gpg-agent")
		cmd.Env = append(os.Environ(), s.env...)
		_ = cmd.Run()
	}
	_ = os.RemoveAll(s.dir)
}

// Check signs a throwaway commit in a repository of its own, so that a
// key that does not sign (a passphrase, a missing gpg) is said before a
// run starts rather than when it lands.
func (k SigningKey) Check(ctx context.Context) error {
	repo, err := os.MkdirTemp("", "core-signing-check-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(repo) }()
	g := gitRunner{git: plainGit}
	if _, err := g.run(ctx, repo, "init", "--quiet", "--bare"); err != nil {
		return fmt.Errorf("check the signing key: %w", err)
	}
	tree, err := g.run(ctx, repo, "mktree")
	if err != nil {
		return fmt.Errorf("check the signing key: %w", err)
	}
	_, err = k.CommitTree(ctx, plainGit, repo, tree, "", "core checks that the key signs\n")
	return err
}

// CommitTree makes a commit of tree (with parent, unless "") signed with
// the key, core its author, in the repository dir.
func (k SigningKey) CommitTree(ctx context.Context, git Git, dir, tree, parent, message string) (string, error) {
	s, err := k.prepare(ctx)
	if err != nil {
		return "", err
	}
	defer s.close()
	args := append(append(append([]string{}, GitIdentity()...), s.args...), "commit-tree", "-S", tree)
	if parent != "" {
		args = append(args, "-p", parent)
	}
	out, err := git(ctx, s.env, dir, message, append(args, "-F", "-")...)
	if err != nil {
		return "", fmt.Errorf("the signing key did not sign the commit: %w", err)
	}
	return strings.TrimSpace(out), nil
}

// plainGit runs git with no user or system configuration, for the key's
// check.
func plainGit(ctx context.Context, env []string, dir, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

package ghfake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// gitEnv is the environment of the git processes the double runs: the
// caller's, without its GIT_* variables and user or system configuration.
func (g *GitHub) gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+filepath.Join(g.root, "home"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
	)
	return append(env, extra...)
}

// runGit runs git in dir and returns its trimmed standard output.
func (g *GitHub) runGit(ctx context.Context, dir string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.git, args...)
	cmd.Dir = dir
	cmd.Env = g.gitEnv()
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// branchSHA returns the commit at the tip of branch in the bare repository
// dir; ok is false when there is no such branch.
func (g *GitHub) branchSHA(ctx context.Context, dir, branch string) (sha string, ok bool, err error) {
	if branch == "" {
		return "", false, nil
	}
	sha, ok, err = g.revParse(ctx, dir, "refs/heads/"+branch)
	if err != nil {
		return "", false, fmt.Errorf("resolve branch %s in %s: %w", branch, dir, err)
	}
	return sha, ok, nil
}

// revParse resolves rev to a commit of the bare repository dir; ok is
// false when git knows no such commit. An error carries git's words.
func (g *GitHub) revParse(ctx context.Context, dir, rev string) (sha string, ok bool, err error) {
	cmd := exec.CommandContext(ctx, g.git, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	cmd.Dir = dir
	cmd.Env = g.gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1 && stderr.Len() == 0:
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), true, nil
}

// fileAt returns the content of path at the tip of branch; ok is false
// when the branch or the file does not exist.
func (g *GitHub) fileAt(ctx context.Context, dir, branch, path string) (content string, ok bool, err error) {
	if _, ok, err := g.branchSHA(ctx, dir, branch); err != nil || !ok {
		return "", false, err
	}
	spec := "refs/heads/" + branch + ":" + path
	if _, err := g.runGit(ctx, dir, nil, "cat-file", "-e", spec); err != nil {
		// The branch exists, so a failing cat-file -e means no such file.
		return "", false, nil
	}
	out, err := g.runGit(ctx, dir, nil, "cat-file", "blob", spec)
	return out, err == nil, err
}

// commitFiles writes one commit with files on top of parent ("" for a root
// commit) to refs/heads/branch through git fast-import, and returns its SHA.
func (g *GitHub) commitFiles(ctx context.Context, dir, branch, parent, message string, files map[string]string) (string, error) {
	var stream bytes.Buffer
	data := func(s string) { fmt.Fprintf(&stream, "data %d\n%s\n", len(s), s) }
	fmt.Fprintf(&stream, "commit refs/heads/%s\n", branch)
	fmt.Fprintf(&stream, "committer testkit <testkit@example.com> %d +0000\n", time.Now().Unix())
	data(message)
	if parent != "" {
		fmt.Fprintf(&stream, "from %s\n", parent)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		clean := strings.TrimPrefix(p, "/")
		if clean == "" || strings.ContainsAny(clean, "\n\"") {
			return "", fmt.Errorf("file path %q cannot be committed", p)
		}
		fmt.Fprintf(&stream, "M 100644 inline %s\n", clean)
		data(files[p])
	}
	if _, err := g.runGit(ctx, dir, &stream, "fast-import", "--quiet"); err != nil {
		return "", err
	}
	sha, ok, err := g.branchSHA(ctx, dir, branch)
	if err == nil && !ok {
		err = fmt.Errorf("branch %s missing after fast-import", branch)
	}
	return sha, err
}

// resolveCommit resolves a branch, tag or SHA to a commit of the bare
// repository dir. A full SHA git does not know is taken as is, so fixtures
// may use made-up SHAs; anything else unknown is not found.
func (g *GitHub) resolveCommit(ctx context.Context, dir, ref string) (sha string, ok bool, err error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", false, nil
	}
	sha, ok, err = g.revParse(ctx, dir, ref)
	switch {
	case err != nil:
		return "", false, fmt.Errorf("resolve %s in %s: %w", ref, dir, err)
	case !ok:
		if ref = strings.ToLower(ref); isFullSHA(ref) {
			return ref, true, nil
		}
		return "", false, nil
	}
	return sha, true, nil
}

// isFullSHA reports whether s is a whole SHA-1 or SHA-256 in lower case.
func isFullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

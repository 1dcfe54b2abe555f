package tools

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
	"syscall"
	"time"
)

const (
	maxUntracked     = 100     // untracked files shown as diffs
	maxUntrackedSize = 1 << 20 // larger untracked files are named, not shown
)

type gitDiff struct{}

func (gitDiff) Name() string { return "git_diff" }

func (gitDiff) Doc() string {
	return `git_diff: show what changed in the workspace against the last commit
(HEAD), new untracked files included, as a unified diff.
  tool: git_diff
It takes no arguments and changes nothing.`
}

func (t gitDiff) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	root := env.Workspace.Root()
	bin, err := exec.LookPath("git")
	if err != nil {
		return Result{Output: "git_diff: git is not installed here"}, nil
	}
	tmp, err := os.MkdirTemp("", "core-git-diff-")
	if err != nil {
		return Result{}, fmt.Errorf("git_diff: %w", err)
	}
	defer os.RemoveAll(tmp)
	g := &git{bin: bin, dir: root, env: gitEnv(bin, root, tmp)}

	// A private copy of the index: git diff refreshes the index's stat
	// data and writes it back, and git_diff must change nothing.
	out, msg, err := g.run(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return Result{}, err
	}
	if msg != "" {
		return Result{Output: "git_diff: the workspace is not a usable git repository: " + msg}, nil
	}
	private := filepath.Join(tmp, "index")
	if err := copyIndex(strings.TrimSpace(string(out)), private); err != nil && !errors.Is(err, os.ErrNotExist) {
		return Result{}, fmt.Errorf("git_diff: copy the index: %w", err)
	}
	g.env = append(g.env, "GIT_INDEX_FILE="+private)
	if err := g.disableFilters(ctx); err != nil {
		return Result{}, err
	}

	base := "HEAD"
	if _, msg, err := g.run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return Result{}, err
	} else if msg != "" {
		// No commit yet: everything is new against the empty tree.
		out, msg, err := g.run(ctx, "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			return Result{}, err
		}
		if msg != "" {
			return Result{Output: "git_diff: " + msg}, nil
		}
		base = strings.TrimSpace(string(out))
	}
	var b strings.Builder
	out, msg, err = g.run(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", base, "--")
	if err != nil {
		return Result{}, err
	}
	if msg != "" {
		return Result{Output: "git_diff: git diff failed: " + msg}, nil
	}
	b.Write(out)
	if err := g.untracked(ctx, &b); err != nil {
		return Result{}, err
	}
	if b.Len() == 0 {
		return Result{Output: "no changes", Target: "workspace"}, nil
	}
	return Result{Output: b.String(), Target: "workspace"}, nil
}

// untracked writes the untracked, not ignored files as new-file diffs.
func (g *git) untracked(ctx context.Context, b *strings.Builder) error {
	out, msg, err := g.run(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return err
	}
	if msg != "" {
		fmt.Fprintf(b, "[untracked files could not be listed: %s]\n", msg)
		return nil
	}
	var names []string
	for _, n := range strings.Split(string(out), "\x00") {
		if n != "" {
			names = append(names, n)
		}
	}
	for i, name := range names {
		if i == maxUntracked {
			fmt.Fprintf(b, "[%d more untracked files not shown: %s]\n", len(names)-i, strings.Join(names[i:min(len(names), i+20)], ", "))
			break
		}
		if strings.HasSuffix(name, "/") {
			fmt.Fprintf(b, "[untracked directory %s holds its own git repository; not shown]\n", name)
			continue
		}
		if fi, err := os.Lstat(filepath.Join(g.dir, name)); err == nil && fi.Size() > maxUntrackedSize {
			fmt.Fprintf(b, "[new file %s: %d bytes, too large to show]\n", name, fi.Size())
			continue
		}
		// Exit status 1 means "differs", which a new file always does.
		d, msg, err := g.run(ctx, "diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--", "/dev/null", name)
		if err != nil {
			return err
		}
		b.Write(d)
		if msg != "" {
			fmt.Fprintf(b, "[new file %s could not be shown: %s]\n", name, msg)
		}
	}
	return nil
}

// disableFilters turns off every filter driver the repository configures:
// a clean filter is a program git would run on the workspace's files while
// diffing them. The overrides go through GIT_CONFIG_KEY_n, which, unlike
// -c, takes any driver name.
func (g *git) disableFilters(ctx context.Context) error {
	out, _, err := g.run(ctx, "config", "-z", "--get-regexp", `^filter\.`)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var keys [][2]string
	for _, entry := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(entry, "\n")
		dot := strings.LastIndexByte(key, '.')
		if !strings.HasPrefix(key, "filter.") || dot <= len("filter.") {
			continue
		}
		name := key[len("filter."):dot]
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, kv := range [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}} {
			keys = append(keys, [2]string{"filter." + name + "." + kv[0], kv[1]})
		}
	}
	for i, kv := range keys {
		g.env = append(g.env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	g.env = append(g.env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(keys)))
	return nil
}

// git runs git read-only, with a clean environment, in one directory.
type git struct {
	bin, dir string
	env      []string
}

// gitEnv is a clean environment for git: nothing inherited (no GIT_*
// variable, no token), no system or global configuration, a throwaway
// HOME, no prompts, and no looking for a repository above root.
func gitEnv(bin, root, home string) []string {
	return []string{
		"PATH=" + filepath.Dir(bin) + string(filepath.ListSeparator) + "/usr/bin:/bin",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home,
		"LANG=C",
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(root),
	}
}

// run runs one git sub-command. A failing git (any exit status but 0, or 1
// for a --no-index diff) comes back as msg, git's own words; err is for git
// not running at all, or ctx ending.
func (g *git) run(ctx context.Context, args ...string) (out []byte, msg string, err error) {
	argv := append([]string{
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.fsmonitor=false",
		"-c", "diff.external=",
		"-c", "core.quotePath=false",
		"--no-pager",
	}, args...)
	cmd := exec.CommandContext(ctx, g.bin, argv...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), "", nil
	case errors.As(err, &exit):
		if exit.ExitCode() == 1 && slices.Contains(args, "--no-index") {
			return stdout.Bytes(), "", nil
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = fmt.Sprintf("git %s: exit status %d", args[0], exit.ExitCode())
		}
		return stdout.Bytes(), msg, nil
	}
	return nil, "", fmt.Errorf("run git %s: %w", args[0], err)
}

// copyIndex copies the index at src to dst (a new file) with its
// modification time: git takes an entry whose file's mtime is not before
// the index's as racily clean and compares its content; a copy made now
// would make a change written in the index's second look clean. The index
// is the workspace's: a link or anything but a regular file is refused.
func copyIndex(src, dst string) error {
	f, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", src)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}

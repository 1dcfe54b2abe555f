// Package instructions reads a repository's instructions for agents
// (AGENTS.md, its fallbacks and nested AGENTS.md files) from a commit's
// tree through git, bounded, as the system prompt's section.
package instructions

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/coreagent/core/gh"
)

// Max bounds the repository instructions the system prompt carries, all
// files together.
const Max = 32 << 10

// Git runs git in dir and returns its trimmed standard output; a failure
// carries git's own words.
type Git func(ctx context.Context, dir string, args ...string) (string, error)

// instructionFallbacks are read, in order, when the repository has no
// AGENTS.md at its root.
var instructionFallbacks = []string{"CLAUDE.md", ".github/copilot-instructions.md"}

// instructionFile is one file of repository instructions at the start
// commit.
type instructionFile struct {
	path string // in the repository, e.g. "AGENTS.md" or "pkg/AGENTS.md"
	oid  string
	size int64
}

// dir is the directory the file applies to, "" for the root.
func (f instructionFile) dir() string {
	if d := path.Dir(f.path); d != "." && path.Base(f.path) == "AGENTS.md" {
		return d
	}
	return ""
}

// Read reads the repository's instructions for agents from
// the start commit's tree (never from the workspace's files, which the
// model and the repository's own content control): AGENTS.md at the root,
// else CLAUDE.md, else .github/copilot-instructions.md, and every nested
// AGENTS.md, which applies to its directory. Only regular files count (a
// symlink is a blob of mode 120000 and is skipped). The text is scrubbed of
// hidden content as issues are and capped at Max in all; the
// files left out are named so the model can read them. It returns the
// prompt section and the files used. git lists the tree; env is the
// environment git runs with when a blob is read.
func Read(ctx context.Context, git Git, env []string, dir, commit string) (string, []string, error) {
	files, err := instructionFiles(ctx, git, dir, commit)
	if err != nil || len(files) == 0 {
		return "", nil, err
	}
	var b strings.Builder
	var used, left []string
	budget := Max
	for _, f := range files {
		if budget <= 0 {
			left = append(left, f.path)
			continue
		}
		data, err := readBlob(ctx, env, dir, f.oid, budget)
		if err != nil {
			return "", nil, err
		}
		text := strings.TrimSpace(gh.Sanitize(string(data)))
		if int64(len(data)) < f.size {
			text += fmt.Sprintf("\n\n[cut: %s is %d bytes; only the first %d are shown. Read the rest with read_file.]", f.path, f.size, len(data))
		}
		budget -= len(data)
		heading := "## " + f.path
		if d := f.dir(); d != "" {
			heading += " (applies to files under " + d + "/)"
		}
		fmt.Fprintf(&b, "%s\n\n%s\n\n", heading, text)
		used = append(used, f.path)
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "Not shown, for lack of room (read them with read_file when you work in their directories): %s\n", strings.Join(left, ", "))
	}
	return strings.TrimSpace(b.String()), used, nil
}

// instructionFiles lists the instruction files of commit's tree, the root
// one first, then the nested AGENTS.md files by path.
func instructionFiles(ctx context.Context, git Git, dir, commit string) ([]instructionFile, error) {
	out, err := git(ctx, dir, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
	if err != nil {
		return nil, fmt.Errorf("list the repository instructions at %s: %w", commit, err)
	}
	byPath := map[string]instructionFile{}
	var nested []instructionFile
	for _, rec := range strings.Split(out, "\x00") {
		// "<mode> SP <type> SP <oid> SP+ <size> TAB <path>"
		meta, p, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || fields[1] != "blob" || (fields[0] != "100644" && fields[0] != "100755") {
			continue
		}
		size, err := strconv.ParseInt(fields[3], 10, 64)
		if err != nil {
			continue
		}
		f := instructionFile{path: p, oid: fields[2], size: size}
		switch {
		case p == "AGENTS.md" || slices.Contains(instructionFallbacks, p):
			byPath[p] = f
		case path.Base(p) == "AGENTS.md":
			nested = append(nested, f)
		}
	}
	var files []instructionFile
	for _, p := range append([]string{"AGENTS.md"}, instructionFallbacks...) {
		if f, ok := byPath[p]; ok {
			files = append(files, f)
			break
		}
	}
	sort.Slice(nested, func(i, j int) bool { return nested[i].path < nested[j].path })
	return append(files, nested...), nil
}

// readBlob reads at most limit bytes of a blob; git is stopped once they
// are read.
func readBlob(ctx context.Context, env []string, dir, oid string, limit int) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-c", "core.hooksPath=/dev/null", "cat-file", "blob", oid)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", oid, err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("read %s: %w", oid, err)
	}
	data, rerr := io.ReadAll(io.LimitReader(stdout, int64(limit)))
	cut := len(data) == limit
	if cut {
		cancel() // the rest is not wanted
	}
	werr := cmd.Wait()
	if rerr != nil {
		return nil, fmt.Errorf("read %s: %w", oid, rerr)
	}
	if werr != nil && !cut {
		return nil, fmt.Errorf("git cat-file %s: %s", oid, strings.TrimSpace(stderr.String()))
	}
	return data, nil
}

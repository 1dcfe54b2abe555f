package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/receipt"
)

// gitIn runs git with env alone (no token, no GIT_DIR), its hooks off,
// as a session runs it.
func gitIn(env []string) contract.Git { return session.Git(env) }

// clone clones the repository the receipt names (or --repo) into ws: a
// local directory or a git URL with git, "owner/name" with o.Clone. The
// user's repository itself is never where the checks run.
func clone(ctx context.Context, o Options, r *receipt.Receipt, g contract.Git, ws string) error {
	src := orWords(o.Repo, r.Repository)
	if strings.HasPrefix(src, "-") || src == "" {
		return refuse("the repository %q is not a directory, a git URL or owner/name", src)
	}
	switch {
	case isLocal(src):
		abs, err := filepath.Abs(src)
		if err != nil {
			return refuse("the repository %s: %w", src, err)
		}
		if _, err := g(ctx, "", "clone", "--quiet", "--no-checkout", "--", abs, ws); err != nil {
			return refuse("the repository %s could not be cloned: %w (give the repository with --repo DIR|URL)", src, err)
		}
	case strings.Contains(src, "://"):
		if _, err := g(ctx, "", "clone", "--quiet", "--no-checkout", "--", src, ws); err != nil {
			return refuse("the repository %s could not be cloned: %w", src, err)
		}
	case o.Clone != nil && isGitHub(src):
		if err := o.Clone(ctx, src, ws); err != nil {
			return refuse("the repository %s could not be cloned: %w", src, err)
		}
	default:
		return refuse("the repository %q is not a directory, a git URL or owner/name (give it with --repo DIR|URL)", src)
	}
	return nil
}

// isLocal says src names a directory on this machine.
func isLocal(src string) bool {
	if filepath.IsAbs(src) || strings.HasPrefix(src, ".") {
		return true
	}
	fi, err := os.Stat(src)
	return err == nil && fi.IsDir()
}

// isGitHub says src is owner/name, cloned from GitHub with Options.Clone.
func isGitHub(src string) bool {
	return !isLocal(src) && !strings.Contains(src, "://") && strings.Count(src, "/") == 1
}

// haveCommits checks that both commits are in the clone and hold the
// receipt's trees. A commit no branch holds (force-pushed away) is fetched
// by its hash: a server that still reaches it from a ref serves it.
func haveCommits(ctx context.Context, o Options, g contract.Git, ws string, r *receipt.Receipt) error {
	for _, side := range []struct {
		name string
		receipt.Side
	}{{"start", r.Start}, {"result", r.Result}} {
		tree, err := g(ctx, ws, "rev-parse", "--verify", "--quiet", side.Commit+"^{tree}")
		if err != nil || tree == "" {
			if tree, err = fetchCommit(ctx, o, r, g, ws, side.Commit); err != nil {
				return refuse("the receipt's %s commit %s is not in the repository, nor served by its hash: give the repository that has it with --repo", side.name, side.Commit)
			}
			fmt.Fprintf(o.Out, "note: the receipt's %s commit %s is on no branch of the repository: fetched by its hash\n", side.name, short(side.Commit))
		}
		if tree != side.Tree {
			return refuse("the receipt's %s commit %s holds tree %s, not the receipt's tree %s", side.name, side.Commit, tree, side.Tree)
		}
	}
	return nil
}

// fetchCommit fetches commit (a hash read checked) into the clone ws by
// its hash and returns its tree.
func fetchCommit(ctx context.Context, o Options, r *receipt.Receipt, g contract.Git, ws, commit string) (string, error) {
	var err error
	if src := orWords(o.Repo, r.Repository); o.Fetch != nil && isGitHub(src) {
		err = o.Fetch(ctx, src, ws, commit)
	} else {
		_, err = g(ctx, ws, "fetch", "--quiet", "--no-tags", "origin", commit)
	}
	if err != nil {
		return "", err
	}
	tree, err := g(ctx, ws, "rev-parse", "--verify", "--quiet", commit+"^{tree}")
	if err != nil || tree == "" {
		return "", fmt.Errorf("the server sent no commit %s", commit)
	}
	return tree, nil
}

// branchMoved returns the tree the receipt's branch now holds when it is
// not the checked one ("" when it is, or when there is no such branch).
func branchMoved(ctx context.Context, o Options, r *receipt.Receipt, g contract.Git, ws string) (string, error) {
	if r.Branch == "" {
		return "", nil
	}
	if _, err := g(ctx, ws, "check-ref-format", "--branch", r.Branch); err != nil || strings.HasPrefix(r.Branch, "-") {
		fmt.Fprintf(o.Out, "note: the receipt's branch %q is not a branch name: not looked at\n", r.Branch)
		return "", nil
	}
	tree, err := g(ctx, ws, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/"+r.Branch+"^{tree}")
	if err != nil || tree == "" {
		fmt.Fprintf(o.Out, "note: the branch %s is no longer in the repository\n", r.Branch)
		return "", nil
	}
	if tree == r.Result.Tree {
		return "", nil
	}
	return tree, nil
}

// lookPath finds name on path, as the sandbox does: absolute directories
// only.
func lookPath(path, name string) (string, error) {
	if strings.Contains(name, "/") {
		return "", errors.New("a check's program is a name, not a path")
	}
	for _, dir := range filepath.SplitList(path) {
		if p := filepath.Join(dir, name); filepath.IsAbs(dir) && limit.IsExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no %s on PATH", name)
}

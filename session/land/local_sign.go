package land

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/coreagent/core/internal/clip"
)

// unsignedRef holds, in the user's repository, the workspace's commit
// while core signs it there.
const unsignedRef = "refs/core/unsigned"

// signs reports whether the user's repository asks for signed commits
// (commit.gpgsign, in its own or the user's global configuration; the
// workspace's, which the session could change, is never read).
func (r *Local) signs(ctx context.Context) bool {
	v, err := r.git.run(ctx, r.path, "config", "--bool", "--get", "commit.gpgsign")
	return err == nil && v == "true"
}

// landSigned lands src of the workspace on branch as commits made again
// in the user's repository with its own signing setup (git commit-tree
// -S there): the new commits' trees, messages, authors and dates are the
// workspace's. A commit git could not sign lands nothing, and git's words
// say why. The workspace's src then names the signed commit.
func (r *Local) landSigned(ctx context.Context, s *Work, src, branch string) (string, error) {
	ref := "refs/heads/" + branch
	if _, err := r.git.run(ctx, r.path, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", s.Workspace, "+"+src+":"+unsignedRef); err != nil {
		return "", fmt.Errorf("land branch %s in %s: %w", branch, r.path, err)
	}
	defer func() { _, _ = r.git.run(ctx, r.path, "update-ref", "-d", unsignedRef) }()
	list, err := r.git.run(ctx, r.path, "rev-list", "--reverse", "--topo-order", unsignedRef, "--not", "--branches", "--tags", "--")
	if err != nil {
		return "", fmt.Errorf("list the commits to sign in %s: %w", r.path, err)
	}
	signed := map[string]string{}
	tip, err := r.git.run(ctx, r.path, "rev-parse", "--verify", unsignedRef)
	if err != nil {
		return "", fmt.Errorf("land branch %s in %s: %w", branch, r.path, err)
	}
	for _, sha := range strings.Fields(list) {
		if tip, err = r.signCommit(ctx, sha, signed); err != nil {
			return "", err
		}
		signed[sha] = tip
	}
	old, err := r.git.run(ctx, r.path, "rev-parse", "--verify", "--quiet", ref)
	if err != nil || old == "" {
		old = strings.Repeat("0", len(tip))
	} else if _, err := r.git.run(ctx, r.path, "merge-base", "--is-ancestor", old, tip); err != nil {
		return "", fmt.Errorf("land branch %s in %s: the branch moved since the session started (its commit %s is not in the session's), and a commit lands only as a fast-forward: nothing was landed", branch, r.path, clip.Hash(old))
	}
	if _, err := r.git.run(ctx, r.path, "update-ref", "-m", "core: land a signed commit", ref, tip, old); err != nil {
		return "", fmt.Errorf("land branch %s in %s: %w", branch, r.path, err)
	}
	ws := gitRunner{git: s.Git}
	// The branch is the workspace's HEAD: its tree, the same, stays.
	if _, err := ws.run(ctx, s.Workspace, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--update-head-ok", "--", r.path, "+"+ref+":"+src); err != nil {
		return "", fmt.Errorf("landed the signed commit %s on %s, but fetching it into the workspace failed: %w", clip.Hash(tip), branch, err)
	}
	return tip, nil
}

// signCommit makes commit sha again, signed, in the user's repository,
// its parents mapped through signed.
func (r *Local) signCommit(ctx context.Context, sha string, signed map[string]string) (string, error) {
	c, err := readLocalCommit(ctx, r.git, r.path, sha)
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", "-S", c.tree}
	for _, p := range c.parents {
		if s, ok := signed[p]; ok {
			p = s
		}
		args = append(args, "-p", p)
	}
	env := []string{
		"GIT_AUTHOR_NAME=" + c.author.Name, "GIT_AUTHOR_EMAIL=" + c.author.Email, "GIT_AUTHOR_DATE=" + gitDate(c.author.When.Unix(), c.author.When.Format("-0700")),
		"GIT_COMMITTER_NAME=" + c.committer.Name, "GIT_COMMITTER_EMAIL=" + c.committer.Email, "GIT_COMMITTER_DATE=" + gitDate(c.committer.When.Unix(), c.committer.When.Format("-0700")),
	}
	out, err := r.git.with(env...).runInput(ctx, r.path, c.message, append(args, "-F", "-")...)
	if err != nil {
		return "", fmt.Errorf("not landed: your git configuration asks for signed commits (commit.gpgsign), and signing the commit failed: %w", err)
	}
	return out, nil
}

func gitDate(unix int64, tz string) string { return "@" + strconv.FormatInt(unix, 10) + " " + tz }

package land

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
)

// localCommit is a commit of the workspace as git stores it.
type localCommit struct {
	sha, tree         string
	parents           []string
	author, committer gh.Person
	message           string
}

// pushAPI lands the session's commit (and any of its ancestors GitHub
// lacks, back to the start commit) through the Git Data API: a blob per
// changed file, a tree on the parent's, a commit with the same message,
// author and committer, so that GitHub signs it for an App. It refuses,
// with the branch untouched, a tree GitHub made that is not the checked
// one. Then the branch moves (fast-forward only), the landed commit is
// fetched into the workspace, rec.Commit names it and s.Signature says
// what GitHub concluded of its signature.
func (r *Repo) pushAPI(ctx context.Context, s *Work) error {
	g, err := r.authed(ctx)
	if err != nil {
		return fmt.Errorf("land %s on %s: %w", s.Branch, r.Name(), err)
	}
	ws := s.Workspace
	// What the clone saw on GitHub, and what core landed since, is there.
	list, err := g.run(ctx, ws, "rev-list", "--reverse", "--topo-order", s.Commit, "--not", s.StartCommit, "--remotes=origin", "--")
	if err != nil {
		return fmt.Errorf("list the commits to land: %w", err)
	}
	landed := map[string]string{} // local SHA -> GitHub's
	head := s.Commit
	for _, sha := range strings.Fields(list) {
		if head, err = r.createCommit(ctx, g, ws, sha, landed); err != nil {
			return err
		}
		landed[sha] = head
	}
	if err := r.checkLandedTree(ctx, g, s, head); err != nil {
		return err
	}
	if err := r.client.MoveBranch(ctx, r.owner, r.repoNm, s.Branch, head); err != nil {
		if errors.Is(err, gh.ErrNotFastForward) {
			return &MovedError{branch: s.Branch, commit: s.Commit, workspace: ws}
		}
		return fmt.Errorf("not landed: %w", err)
	}
	s.Commit = head
	s.Signature = r.signature(ctx, head)
	return fetchLanded(ctx, g, ws, s.Branch, head)
}

// createCommit makes local commit sha on GitHub, its parents mapped
// through landed, and returns GitHub's SHA for it.
func (r *Repo) createCommit(ctx context.Context, g gitRunner, ws, sha string, landed map[string]string) (string, error) {
	c, err := readLocalCommit(ctx, g, ws, sha)
	if err != nil {
		return "", err
	}
	base, entries, err := r.treeEntries(ctx, g, ws, c)
	if err != nil {
		return "", err
	}
	tree := base
	if len(entries) > 0 || base == "" {
		if tree, err = r.client.CreateTree(ctx, r.owner, r.repoNm, base, entries); err != nil {
			return "", fmt.Errorf("not landed: %w", err)
		}
	}
	if tree != c.tree {
		return "", fmt.Errorf("not landed: the tree GitHub made for commit %s is %s, not its tree %s: nothing was pushed", clip.Hash(sha), tree, c.tree)
	}
	parents := make([]string, len(c.parents))
	for i, p := range c.parents {
		parents[i] = p
		if l, ok := landed[p]; ok {
			parents[i] = l
		}
	}
	made, madeTree, err := r.client.CreateCommit(ctx, r.owner, r.repoNm, gh.NewCommit{
		Message: c.message, Tree: tree, Parents: parents, Author: c.author, Committer: c.committer,
	})
	if err != nil {
		return "", fmt.Errorf("not landed: %w", err)
	}
	if madeTree != c.tree {
		return "", fmt.Errorf("not landed: the commit GitHub made, %s, holds the tree %s, not the checked tree %s: nothing was pushed", made, madeTree, c.tree)
	}
	return made, nil
}

// checkLandedTree refuses a commit whose tree on GitHub is not the tree
// the checks ran on.
func (r *Repo) checkLandedTree(ctx context.Context, g gitRunner, s *Work, head string) error {
	want := s.Verdict.Tree
	if want == "" {
		return nil
	}
	local, err := g.run(ctx, s.Workspace, "rev-parse", "--verify", s.Commit+"^{tree}")
	if err != nil {
		return fmt.Errorf("read the tree of %s: %w", clip.Hash(s.Commit), err)
	}
	if local != want {
		return fmt.Errorf("not landed: the tree of the commit %s is %s, not the checked tree %s: nothing was pushed", head, local, want)
	}
	return nil
}

// fetchLanded fetches the landed commit into the workspace and points the
// workspace's branch, and its remote-tracking branch, at it.
func fetchLanded(ctx context.Context, g gitRunner, ws, branch, sha string) error {
	if _, err := g.run(ctx, ws, "fetch", "--quiet", "--no-tags", "origin", sha); err != nil {
		if _, err2 := g.run(ctx, ws, "fetch", "--quiet", "--no-tags", "origin", "refs/heads/"+branch); err2 != nil {
			return fmt.Errorf("landed %s on %s, but fetching it into the workspace failed: %w", clip.Hash(sha), branch, err)
		}
	}
	for _, ref := range []string{"refs/remotes/origin/" + branch, "refs/heads/" + branch} {
		if _, err := g.run(ctx, ws, "update-ref", "-m", "core: landed through the API", ref, sha); err != nil {
			return fmt.Errorf("landed %s on %s, but pointing the workspace's %s at it failed: %w", clip.Hash(sha), branch, ref, err)
		}
	}
	return nil
}

// signature reads back what GitHub concluded of the landed commit's
// signature, in words for the pull request and the report.
func (r *Repo) signature(ctx context.Context, sha string) string {
	v, err := r.client.CommitVerification(ctx, r.owner, r.repoNm, sha)
	switch {
	case err != nil:
		return "unknown: " + err.Error()
	case v.Verified:
		return "verified (signed by GitHub for the App)"
	case v.Reason == "unsigned":
		return "unverified: unsigned (GitHub signs the commits an App's or the Action's token makes; a personal token's are not)"
	}
	return "unverified: " + v.Reason
}

// readLocalCommit reads commit sha of the workspace.
func readLocalCommit(ctx context.Context, g gitRunner, ws, sha string) (localCommit, error) {
	raw, err := g.raw(ctx, ws, "", "cat-file", "commit", sha)
	if err != nil {
		return localCommit{}, fmt.Errorf("read the commit %s: %w", clip.Hash(sha), err)
	}
	head, msg, _ := strings.Cut(raw, "\n\n")
	c := localCommit{sha: sha, message: msg}
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			c.tree = v
		case "parent":
			c.parents = append(c.parents, v)
		case "author":
			c.author, err = parseIdent(v)
		case "committer":
			c.committer, err = parseIdent(v)
		}
		if err != nil {
			return localCommit{}, fmt.Errorf("read the commit %s: %w", clip.Hash(sha), err)
		}
	}
	return c, nil
}

// parseIdent parses git's "Name <email> unix +hhmm".
func parseIdent(s string) (gh.Person, error) {
	name, rest, ok1 := strings.Cut(s, " <")
	email, when, ok2 := strings.Cut(rest, "> ")
	unix, tz, ok3 := strings.Cut(when, " ")
	sec, err := strconv.ParseInt(unix, 10, 64)
	if !ok1 || !ok2 || !ok3 || err != nil || len(tz) != 5 {
		return gh.Person{}, fmt.Errorf("an author or committer line git should not have written: %q", s)
	}
	h, _ := strconv.Atoi(tz[1:3])
	m, _ := strconv.Atoi(tz[3:5])
	off := h*3600 + m*60
	if tz[0] == '-' {
		off = -off
	}
	return gh.Person{Name: name, Email: email, When: time.Unix(sec, 0).In(time.FixedZone(tz, off))}, nil
}

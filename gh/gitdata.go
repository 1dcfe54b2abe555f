package gh

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// MaxBlob is the largest file the Git Data API takes: GitHub refuses a
// blob over 100 MB.
const MaxBlob = 100 << 20

// ErrNotFastForward is a branch update GitHub refused because the branch
// moved: the new commit does not descend from its head.
var ErrNotFastForward = errors.New("the update is not a fast forward")

// TreeEntry is one path of a tree made through the Git Data API: a blob
// (mode 100644, 100755 or 120000 for a symbolic link) or a submodule
// (160000) by SHA, or, with Delete, the path removed from the base tree.
type TreeEntry struct {
	Path, Mode, SHA string
	Delete          bool
}

// Person is a commit's author or committer.
type Person struct {
	Name, Email string
	When        time.Time
}

// NewCommit is a commit made through the Git Data API.
type NewCommit struct {
	Message, Tree     string
	Parents           []string
	Author, Committer Person
}

// Verification is what GitHub says of a commit's signature: Verified, or
// why not (Reason: "unsigned", "unknown_key", "bad_email", ...).
type Verification struct {
	Verified bool
	Reason   string
}

// CreateBlob stores content (any bytes: it is sent base64) in owner/name
// and returns the blob's SHA.
func (c *Client) CreateBlob(ctx context.Context, owner, name string, content []byte) (string, error) {
	if len(content) > MaxBlob {
		return "", fmt.Errorf("a file of %d bytes is over the Git Data API's limit of %d", len(content), MaxBlob)
	}
	b, _, err := c.gh.Git.CreateBlob(ctx, owner, name, &github.Blob{
		Content:  github.String(base64.StdEncoding.EncodeToString(content)),
		Encoding: github.String("base64"),
	})
	if err != nil {
		return "", fmt.Errorf("create a blob in %s/%s: %w", owner, name, err)
	}
	return b.GetSHA(), nil
}

// CreateTree makes a tree of base (a tree's SHA) with entries changed,
// added or deleted, and returns its SHA.
func (c *Client) CreateTree(ctx context.Context, owner, name, base string, entries []TreeEntry) (string, error) {
	wire := make([]*github.TreeEntry, 0, len(entries))
	for _, e := range entries {
		te := &github.TreeEntry{Path: github.String(e.Path), Mode: github.String(e.Mode), Type: github.String(entryType(e.Mode))}
		if !e.Delete {
			te.SHA = github.String(e.SHA)
		}
		wire = append(wire, te)
	}
	t, _, err := c.gh.Git.CreateTree(ctx, owner, name, base, wire)
	if err != nil {
		return "", fmt.Errorf("create a tree in %s/%s: %w", owner, name, err)
	}
	return t.GetSHA(), nil
}

func entryType(mode string) string {
	if mode == "160000" {
		return "commit"
	}
	return "blob"
}

// CreateCommit makes the commit nc in owner/name and returns its SHA and
// the SHA of the tree GitHub recorded.
func (c *Client) CreateCommit(ctx context.Context, owner, name string, nc NewCommit) (sha, tree string, err error) {
	parents := make([]*github.Commit, 0, len(nc.Parents))
	for _, p := range nc.Parents {
		parents = append(parents, &github.Commit{SHA: github.String(p)})
	}
	person := func(p Person) *github.CommitAuthor {
		return &github.CommitAuthor{Name: github.String(p.Name), Email: github.String(p.Email), Date: &github.Timestamp{Time: p.When}}
	}
	cm, _, err := c.gh.Git.CreateCommit(ctx, owner, name, &github.Commit{
		Message: github.String(nc.Message), Tree: &github.Tree{SHA: github.String(nc.Tree)},
		Parents: parents, Author: person(nc.Author), Committer: person(nc.Committer),
	}, nil)
	if err != nil {
		return "", "", fmt.Errorf("create a commit in %s/%s: %w", owner, name, err)
	}
	return cm.GetSHA(), cm.GetTree().GetSHA(), nil
}

// MoveBranch points branch of owner/name at sha: a new branch is made,
// an existing one only fast-forwards (ErrNotFastForward when it moved).
func (c *Client) MoveBranch(ctx context.Context, owner, name, branch, sha string) error {
	ref := "refs/heads/" + branch
	_, _, err := c.gh.Git.GetRef(ctx, owner, name, ref)
	switch {
	case httpStatus(err) == http.StatusNotFound:
		_, _, err = c.gh.Git.CreateRef(ctx, owner, name, &github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(sha)}})
		if err != nil {
			return fmt.Errorf("create the branch %s of %s/%s: %w", branch, owner, name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("read the branch %s of %s/%s: %w", branch, owner, name, err)
	}
	_, _, err = c.gh.Git.UpdateRef(ctx, owner, name, &github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(sha)}}, false)
	if err == nil {
		return nil
	}
	if httpStatus(err) == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(err.Error()), "fast forward") {
		return fmt.Errorf("move the branch %s of %s/%s: %w", branch, owner, name, ErrNotFastForward)
	}
	return fmt.Errorf("move the branch %s of %s/%s: %w", branch, owner, name, err)
}

// CommitVerification reads back what GitHub says of the signature of
// commit sha.
func (c *Client) CommitVerification(ctx context.Context, owner, name, sha string) (Verification, error) {
	rc, _, err := c.gh.Repositories.GetCommit(ctx, owner, name, sha, nil)
	if err != nil {
		return Verification{}, fmt.Errorf("read the commit %s of %s/%s: %w", sha, owner, name, err)
	}
	v := rc.GetCommit().GetVerification()
	return Verification{Verified: v.GetVerified(), Reason: v.GetReason()}, nil
}

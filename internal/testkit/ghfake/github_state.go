package ghfake

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Issue is an issue, or the issue half of a pull request (issues and pull
// requests share one number space, as on GitHub).
type Issue struct {
	// Number is assigned by the double; AddIssue ignores it.
	Number int
	Title  string
	Body   string
	// User is the author's login; AddIssue defaults it to the owner.
	User   string
	Labels []string
	// State is "open" (the default) or "closed".
	State string
	// Merged makes a closed pull request one that was merged: GitHub
	// says merged and merged_at (the base branch is left as it is).
	Merged bool
	// AuthorAssociation is sent as is; empty derives it: OWNER for the
	// owner, COLLABORATOR for a user with a role, else NONE.
	AuthorAssociation string
	// CreatedAt defaults to now, UpdatedAt to CreatedAt.
	CreatedAt time.Time
	UpdatedAt time.Time
	ClosedAt  time.Time
	// PullRequest is set by the double when the issue is a pull request.
	PullRequest bool
}

// Comment is an issue or pull request conversation comment.
type Comment struct {
	// ID is assigned by the double; AddComment ignores it.
	ID int64
	// Issue is the number of the issue or pull request commented on.
	Issue int
	// User is the author's login; AddComment defaults it to the owner.
	User              string
	Body              string
	AuthorAssociation string // as for Issue
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// Pull is a pull request.
type Pull struct {
	// Number is assigned by the double; AddPull ignores it.
	Number int
	Title  string
	Body   string
	User   string
	// Head is the head branch, in HeadRepo ("owner/name"); an empty
	// HeadRepo means the base repository, another one makes a fork pull
	// request.
	Head     string
	HeadRepo string
	// Base is the base branch; empty means the default branch.
	Base  string
	Draft bool
	// State is "open" (the default) or "closed".
	State string
	// Merged makes a closed pull request one that was merged: GitHub
	// says merged and merged_at (the base branch is left as it is).
	Merged bool
	// HeadSHA is the head commit when the pull request was created or last
	// served (set by the double).
	HeadSHA   string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Reaction is an emoji reaction to an issue or a comment.
type Reaction struct {
	ID        int64
	User      string
	Content   string // "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"
	CreatedAt time.Time
}

// Dispatch is a recorded workflow_dispatch request.
type Dispatch struct {
	Workflow string // the workflow file name, e.g. "core.yml"
	Ref      string
	Inputs   map[string]any
	User     string // the login of the token that asked
}

type issueState struct {
	Issue
	id        int64
	pull      *pullState
	comments  []int64
	reactions []Reaction
}

type pullState struct {
	head     string
	headRepo *Repo
	base     string
	draft    bool
	headSHA  string // last known
	merged   bool
	refSHA   string // where refs/pull/N/head of the base points
}

type commentState struct {
	Comment
	reactions []Reaction
}

// associationLocked derives an author association. Callers hold g.mu.
func (r *Repo) associationLocked(set, login string) string {
	switch {
	case set != "":
		return set
	case strings.EqualFold(login, r.owner):
		return "OWNER"
	case r.roleLocked(login) != "none":
		return "COLLABORATOR"
	}
	return "NONE"
}

// AddIssue adds an issue to owner/repo and returns its number.
func (g *GitHub) AddIssue(owner, repo string, is Issue) (int, error) {
	r := g.repo(owner, repo)
	if r == nil {
		return 0, fmt.Errorf("add issue to %s/%s: no such repository", owner, repo)
	}
	if is.State == "" {
		is.State = "open"
	}
	if is.State != "open" && is.State != "closed" {
		return 0, fmt.Errorf("add issue to %s/%s: state %q is neither open nor closed", owner, repo, is.State)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return r.addIssueLocked(is, nil).Number, nil
}

// addIssueLocked stores a new issue (or pull request when pull is set).
// Callers hold g.mu.
func (r *Repo) addIssueLocked(is Issue, pull *pullState) *issueState {
	r.lastNumber++
	is.Number = r.lastNumber
	is.PullRequest = pull != nil
	is.User = cmp.Or(is.User, r.owner)
	is.Labels = slices.Clone(is.Labels)
	is.CreatedAt = cmp.Or(is.CreatedAt, ghNow())
	is.UpdatedAt = cmp.Or(is.UpdatedAt, is.CreatedAt)
	if is.State == "closed" {
		is.ClosedAt = cmp.Or(is.ClosedAt, is.UpdatedAt)
	}
	for _, l := range is.Labels {
		r.labelIDLocked(l)
	}
	st := &issueState{Issue: is, id: r.g.nextID(), pull: pull}
	r.issues[is.Number] = st
	return st
}

// labelIDLocked returns a label's id, creating the label on first use as
// GitHub does when labels are added to an issue. Callers hold g.mu.
func (r *Repo) labelIDLocked(name string) int64 {
	id, ok := r.labels[name]
	if !ok {
		id = r.g.nextID()
		r.labels[name] = id
	}
	return id
}

// AddComment adds a comment to issue or pull request number of owner/repo
// and returns its id.
func (g *GitHub) AddComment(owner, repo string, number int, c Comment) (int64, error) {
	r := g.repo(owner, repo)
	if r == nil {
		return 0, fmt.Errorf("add comment to %s/%s#%d: no such repository", owner, repo, number)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := r.issues[number]
	if is == nil {
		return 0, fmt.Errorf("add comment to %s/%s#%d: no such issue", owner, repo, number)
	}
	return r.addCommentLocked(is, c).ID, nil
}

// SetCommentTime sets when comment id of owner/repo was created and last
// updated (truncated to GitHub's one-second timestamps): what was written
// earlier than the test could wait for, such as a status comment a bot
// wrote minutes before the job it dispatched started.
func (g *GitHub) SetCommentTime(owner, repo string, id int64, at time.Time) error {
	r := g.repo(owner, repo)
	if r == nil {
		return fmt.Errorf("set the time of comment %d of %s/%s: no such repository", id, owner, repo)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c := r.comments[id]
	if c == nil {
		return fmt.Errorf("set the time of comment %d of %s/%s: no such comment", id, owner, repo)
	}
	c.CreatedAt = at.UTC().Truncate(time.Second)
	c.UpdatedAt = c.CreatedAt
	return nil
}

// addCommentLocked stores a new comment. Callers hold g.mu.
func (r *Repo) addCommentLocked(is *issueState, c Comment) *commentState {
	c.ID = r.g.nextID()
	c.Issue = is.Number
	c.User = cmp.Or(c.User, r.owner)
	c.CreatedAt = cmp.Or(c.CreatedAt, ghNow())
	c.UpdatedAt = cmp.Or(c.UpdatedAt, c.CreatedAt)
	st := &commentState{Comment: c}
	r.comments[c.ID] = st
	is.comments = append(is.comments, c.ID)
	return st
}

func (is *issueState) snapshot() Issue {
	out := is.Issue
	out.Labels = slices.Clone(is.Labels)
	return out
}

func (is *issueState) pullSnapshot() Pull {
	p := is.pull
	head := ""
	if p.headRepo != nil {
		head = p.headRepo.FullName()
	}
	return Pull{
		Number: is.Number, Title: is.Title, Body: is.Body, User: is.User,
		Head: p.head, HeadRepo: head, Base: p.base, Draft: p.draft, State: is.State,
		HeadSHA: p.headSHA, CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt,
	}
}

// extState is what the review and variables endpoints keep
// (github_reviews.go, github_variables.go). Its zero value is ready: maps
// are made on first write. Guarded by g.mu.
type extState struct {
	threads   map[pullKey][]*threadState
	reviews   map[pullKey][]Review
	variables map[*Repo]map[string]*variableState // upper-cased name
}

// pullKey names a pull request of a repository.
type pullKey struct {
	repo *Repo
	pull int
}

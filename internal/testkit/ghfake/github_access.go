package ghfake

import (
	"maps"
	"slices"
)

// The accessors below let tests assert on the double's state. They return
// copies and the zero value for an unknown repository, issue or comment.

// Issue returns issue (or pull request) number of owner/repo.
func (g *GitHub) Issue(owner, repo string, number int) (Issue, bool) {
	r := g.repo(owner, repo)
	if r == nil {
		return Issue{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := r.issues[number]; is != nil {
		return is.snapshot(), true
	}
	return Issue{}, false
}

// Issues returns the issues and pull requests of owner/repo by number.
func (g *GitHub) Issues(owner, repo string) []Issue {
	return collectIssues(g, owner, repo, func(is *issueState) (Issue, bool) { return is.snapshot(), true })
}

// Pulls returns the pull requests of owner/repo by number.
func (g *GitHub) Pulls(owner, repo string) []Pull {
	return collectIssues(g, owner, repo, func(is *issueState) (Pull, bool) {
		if is.pull == nil {
			return Pull{}, false
		}
		return is.pullSnapshot(), true
	})
}

func collectIssues[T any](g *GitHub, owner, repo string, f func(*issueState) (T, bool)) []T {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []T
	for _, n := range slices.Sorted(maps.Keys(r.issues)) {
		if v, ok := f(r.issues[n]); ok {
			out = append(out, v)
		}
	}
	return out
}

// Comments returns the comments on issue or pull request number, oldest
// first.
func (g *GitHub) Comments(owner, repo string, number int) []Comment {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := r.issues[number]
	if is == nil {
		return nil
	}
	out := make([]Comment, 0, len(is.comments))
	for _, id := range is.comments {
		out = append(out, r.comments[id].Comment)
	}
	return out
}

// Reactions returns the reactions to issue or pull request number.
func (g *GitHub) Reactions(owner, repo string, number int) []Reaction {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := r.issues[number]; is != nil {
		return slices.Clone(is.reactions)
	}
	return nil
}

// CommentReactions returns the reactions to comment id.
func (g *GitHub) CommentReactions(owner, repo string, id int64) []Reaction {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := r.comments[id]; c != nil {
		return slices.Clone(c.reactions)
	}
	return nil
}

// Dispatches returns the workflow dispatches owner/repo received.
func (g *GitHub) Dispatches(owner, repo string) []Dispatch {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Dispatch, len(r.dispatches))
	for i, d := range r.dispatches {
		d.Inputs = maps.Clone(d.Inputs)
		out[i] = d
	}
	return out
}

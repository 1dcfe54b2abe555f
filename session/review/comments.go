package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/status"
)

// Comment is a confirmed finding's line comment on head: the evidence
// (claim, command, the head's exit and output, the base's result, the
// reproduction as a suggested test: a new file, not a suggestion block)
// and the finding's marker as its last line.
func Comment(f Finding, head string) string {
	return fmt.Sprintf("**Confirmed on %s**: a reproduction the harness ran fails on the head.\n\n%s\n%s",
		codeSpan(clip.Hash(head)), evidence(f, true), status.FindingMarker(f.Key()))
}

// The first lines core puts on its comments once they no longer speak
// for the newest review.
const (
	stillPrefix    = "Still reproduces on "
	resolvedPrefix = "Resolved: no longer reproduces on "
	retiredPrefix  = "**No longer confirmed** on "
)

// syncer brings core's line comments (those of login with a finding
// marker) in line with a review of head: what went wrong after the
// review was up is a note in out, not an error.
type syncer struct {
	c     Poster
	p     Target
	login string
	head  string
	url   string
	out   *Posted
}

// comments edits, adds and marks core's line comments for r, whose
// confirmed findings' comments are drafts. On the head, the review just
// submitted made drafts' comments; an edited review's are matched by key.
func (s syncer) comments(ctx context.Context, r Result, drafts []draft) {
	list, err := s.c.ReviewComments(ctx, s.p.Owner, s.p.Name, s.p.Number)
	if err != nil {
		s.note("the line comments were not brought up to date: " + err.Error())
		return
	}
	confirmed := map[string]bool{}
	why := map[string]string{}
	for _, f := range r.Findings {
		confirmed[f.Key()] = confirmed[f.Key()] || f.Confirmed
		why[f.Key()] = f.Why
	}
	onHead := map[string]gh.PullComment{}
	for _, cm := range list {
		key := status.FindingIn(cm.Body)
		if key == "" || cm.User != s.login {
			continue
		}
		if cm.CommitID != s.head {
			s.edit(ctx, cm, olderBody(cm.Body, s.head, s.url, confirmed[key]), &s.out.Older)
			continue
		}
		if _, dup := onHead[key]; !dup {
			onHead[key] = cm
		}
	}
	if !s.out.Updated {
		return
	}
	wanted := map[string]bool{}
	for _, d := range drafts {
		wanted[d.key] = true
		if cm, ok := onHead[d.key]; ok {
			s.edit(ctx, cm, d.Body, &s.out.Edited)
			continue
		}
		if _, err := s.c.CreateReviewComment(ctx, s.p.Owner, s.p.Name, s.p.Number, s.head, d.DraftComment); err != nil {
			s.note(fmt.Sprintf("no line comment on %s:%d: %s", d.Path, d.Line, err))
			continue
		}
		s.out.Added++
	}
	for key, cm := range onHead {
		if !wanted[key] {
			s.edit(ctx, cm, retiredBody(cm.Body, s.head, why[key]), &s.out.Edited)
		}
	}
}

// edit sets comment cm's body to body when it differs, counting it in n.
// A comment core may not change is left as it is.
func (s syncer) edit(ctx context.Context, cm gh.PullComment, body string, n *int) {
	if body == cm.Body {
		return
	}
	err := s.c.EditReviewComment(ctx, s.p.Owner, s.p.Name, cm.ID, body)
	switch {
	case errors.Is(err, gh.ErrCommentNotEditable):
	case err != nil:
		s.note(fmt.Sprintf("line comment %d not updated: %s", cm.ID, err))
	default:
		*n++
	}
}

func (s syncer) note(n string) { s.out.Notes = append(s.out.Notes, n) }

// olderBody is the body of core's comment on an older head once head is
// reviewed: one first line (replacing the one an earlier review put
// there) that says whether its finding still reproduces on head.
func olderBody(body, head, url string, still bool) string {
	rest := body
	if first, tail, ok := strings.Cut(body, "\n\n"); ok && (strings.HasPrefix(first, stillPrefix) || strings.HasPrefix(first, resolvedPrefix)) {
		rest = tail
	}
	line := resolvedPrefix + codeSpan(clip.Hash(head)) + "."
	if still {
		line = fmt.Sprintf("%s%s: see [the review of %s](%s).", stillPrefix, codeSpan(clip.Hash(head)), clip.Hash(head), url)
	}
	return line + "\n\n" + rest
}

// retiredBody is the body of core's comment on head for a finding the
// re-run no longer confirms: it says so and why, and folds what it said.
func retiredBody(body, head, why string) string {
	if strings.HasPrefix(body, retiredPrefix) {
		return body
	}
	if why = oneLine(why); why == "" {
		why = "the review no longer reports it"
	}
	key := status.FindingIn(body)
	said := strings.TrimSpace(strings.TrimSuffix(strings.TrimRight(body, "\n"), status.FindingMarker(key)))
	return fmt.Sprintf("%s%s: %s.\n\n<details><summary>What this comment said</summary>\n\n%s\n\n</details>\n\n%s",
		retiredPrefix, codeSpan(clip.Hash(head)), strings.TrimSuffix(why, "."), said, status.FindingMarker(key))
}

// plainCounts says what Post did to line comments, in a few words.
func plainCounts(out Posted) string {
	var parts []string
	for _, c := range []struct {
		n    int
		word string
	}{{out.Added, "added"}, {out.Edited, "edited"}, {out.Older, "on older heads marked"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.word))
		}
	}
	return strings.Join(parts, ", ")
}

package land

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/status"
)

// maxReviewBody keeps a review's body under GitHub's 65,536 characters.
const maxReviewBody = 60000

// review lands a session on a pull request from a fork. core never pushes
// to a fork, so the work goes to the pull request as a review: one
// suggestion per changed hunk on the lines of the pull request's diff
// (GitHub takes review comments only there), and, in the body, the summary,
// the contract, and as patches what no suggestion can express (new, removed
// and binary files, hunks outside the diff). The fork's head is only
// fetched, from this repository's refs/pull/N/head; nothing is written to
// the fork.
func (r *Repo) review(ctx context.Context, s *Work, pr *gh.PullRequest) error {
	rec := s
	if err := s.CheckCommitTree(ctx); err != nil {
		return err
	}
	// Suggestions sit on the lines of the head the session started from;
	// when the head moved since, GitHub would place them on other lines:
	// the whole change goes to the body as a patch instead.
	cur, err := r.client.PullRequest(ctx, r.owner, r.repoNm, pr.Number)
	if err != nil {
		return err
	}
	var files []gh.PullFile
	if cur.HeadSHA == rec.StartCommit {
		if files, err = r.client.PullFiles(ctx, r.owner, r.repoNm, pr.Number); err != nil {
			return err
		}
	}
	// Blobs of a partial clone may be missing: the authenticated runner
	// fetches them. No external diff or text conversion: the workspace's
	// .gitattributes are the fork's.
	g, err := r.authed(ctx)
	if err != nil {
		return err
	}
	// Paths unquoted (a path git must still quote matches no file of the
	// pull request, and goes to the body as a patch).
	diff, err := g.raw(ctx, rec.Workspace, "", "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "-U0", rec.StartCommit, rec.Commit, "--")
	if err != nil {
		return fmt.Errorf("diff the work against the head of pull request #%d: %w", pr.Number, err)
	}
	head := func(path string) ([]string, error) {
		out, err := g.raw(ctx, rec.Workspace, "", "show", "--no-textconv", rec.StartCommit+":"+path)
		if err != nil {
			return nil, fmt.Errorf("read %s at the head of pull request #%d: %w", path, pr.Number, err)
		}
		return strings.Split(strings.TrimSuffix(out, "\n"), "\n"), nil
	}
	sug, err := Suggest(ParseDiff(diff), files, head)
	if err != nil {
		return err
	}
	for i := range sug.Comments {
		sug.Comments[i].Body = s.Scrub(sug.Comments[i].Body)
	}
	url, err := r.client.CreateReview(ctx, r.owner, r.repoNm, pr.Number, gh.NewReview{
		CommitID: rec.StartCommit, Body: s.Scrub(s.reviewBody(cur, sug)), Comments: sug.Comments,
	})
	if err != nil {
		return err
	}
	rec.PRURL = url
	s.Review = fmt.Sprintf(
		"a review with %d %s and %d %s on pull request #%d, from the fork %s: nothing was pushed",
		len(sug.Comments), plural(len(sug.Comments), "suggested change", "suggested changes"),
		len(sug.Rest), plural(len(sug.Rest), "patch", "patches"), pr.Number, pr.HeadRepo)
	return nil
}

// reviewBody is the body of the review on a fork's pull request (pr as it
// is now): what core did and did not do, the summary, the contract, the patches no suggestion
// could carry, and the session's marker.
func (s *Work) reviewBody(pr *gh.PullRequest, sug Suggestions) string {
	rec := s
	var b strings.Builder
	fmt.Fprintf(&b, "core worked on this pull request (session `%s`). It comes from the fork %s, so core pushed nothing to it: ", rec.ID, pr.HeadRepo)
	switch n := len(sug.Comments); {
	case pr.HeadSHA != rec.StartCommit:
		fmt.Fprintf(&b, "its head moved from %s to %s while core worked, so the change is below, as a patch against %s.\n\n", clip.Hash(rec.StartCommit), clip.Hash(pr.HeadSHA), clip.Hash(rec.StartCommit))
	case n == 0:
		b.WriteString("the change is below.\n\n")
	case n == 1:
		b.WriteString("the change is the suggestion below; commit it if you agree.\n\n")
	default:
		fmt.Fprintf(&b, "the change is in %d suggestions below; commit them (in one batch from the Files changed tab) if you agree.\n\n", n)
	}
	if s.Broken {
		b.WriteString("**" + strings.TrimSpace(contract.FailingTitlePrefix) + "** " + s.ContractLine + ".\n\n")
	}
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		b.WriteString(sum + "\n\n")
	}
	s.writeVerification(&b)
	switch {
	case len(sug.Rest) == 0:
	case pr.HeadSHA != rec.StartCommit:
		fmt.Fprintf(&b, "\n### The change\n\nApply it with `git apply` on %s:\n\n", clip.Hash(rec.StartCommit))
	default:
		b.WriteString("\n### Changes a suggestion cannot carry\n\nNew or removed files, and lines this pull request does not change, cannot be suggested; apply them with `git apply`:\n\n")
	}
	if len(sug.Rest) > 0 {
		room := maxReviewBody - b.Len() - 1000
		for _, p := range sug.Rest {
			fence := clip.Fence(p)
			block := fence + "diff\n" + p
			if !strings.HasSuffix(p, "\n") {
				block += "\n"
			}
			block += fence + "\n\n"
			if len(block) > room {
				fmt.Fprintf(&b, "(%d more lines of patch are too long for a review: they are in session `%s`'s workspace.)\n\n", strings.Count(p, "\n"), rec.ID)
				continue
			}
			room -= len(block)
			b.WriteString(block)
		}
	}
	fmt.Fprintf(&b, "\nTurns: %d, tokens: %d.\n\n%s\n", rec.Turns, rec.Tokens, status.SessionMarker(rec.ID))
	return b.String()
}

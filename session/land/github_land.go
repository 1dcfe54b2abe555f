package land

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/receipt"
	"github.com/coreagent/core/status"
)

// Land pushes the session's commit (the checked tree) to its branch and
// opens a draft pull request, or, for a session on an open pull request,
// pushes onto its head and comments. Pushes only fast-forward: when the
// branch moved since the session started, nothing lands (a rebase would
// push a tree no check ran on).
func (r *Repo) Land(ctx context.Context, s *Work) error {
	rec := s
	if rec.PullRequest != 0 {
		if r.pull == nil || r.pull.Number != rec.PullRequest { // a resumed session
			pr, err := r.client.PullRequest(ctx, r.owner, r.repoNm, rec.PullRequest)
			if err != nil {
				return err
			}
			r.pull = pr
		}
		if r.pull.Fork(r.owner, r.repoNm) {
			return r.review(ctx, s, r.pull)
		}
	}
	if err := s.CheckCommitTree(ctx); err != nil {
		return err
	}
	if err := r.push(ctx, s); err != nil {
		return err
	}
	cr := r.startCheckRun(ctx, s)
	err := r.open(ctx, s)
	r.finishCheckRun(ctx, s, cr)
	return err
}

// open opens the draft pull request of a pushed commit, or, on an open
// pull request, comments on it and updates the session's own.
func (r *Repo) open(ctx context.Context, s *Work) error {
	rec := s
	if rec.PullRequest != 0 {
		pr := r.pull
		if _, _, err := r.client.CreateComment(ctx, r.owner, r.repoNm, pr.Number, s.Scrub(s.PullComment())); err != nil {
			return err
		}
		rec.PRURL = pr.HTMLURL
		if !strings.Contains(pr.Body, status.SessionMarker(rec.ID)) {
			return nil // another's pull request: the comment says it all
		}
		// This session's own pull request (a resume): its title and body
		// show the contract of this run.
		if err := r.client.EditPullRequest(ctx, r.owner, r.repoNm, pr.Number, s.Scrub(s.PullTitle()), s.Scrub(s.PullBody())); err != nil {
			return err
		}
		if (s.Broken || s.Exhausted) && !pr.Draft {
			// Ready for review once, broken or unfinished now: a draft again.
			if err := r.client.ConvertToDraft(ctx, pr.NodeID); err != nil {
				return fmt.Errorf("make pull request #%d a draft again: %w", pr.Number, err)
			}
		}
		return r.markReady(ctx, s, pr)
	}
	base := rec.Base
	if shaLike.MatchString(base) {
		if _, err := r.client.BranchSHA(ctx, r.owner, r.repoNm, base); err != nil {
			base = r.repo.DefaultBranch
		}
	}
	body := s.Scrub(s.PullBody())
	pr, err := r.client.CreatePullRequest(ctx, r.owner, r.repoNm, gh.NewPullRequest{
		Title: s.Scrub(s.PullTitle()), Body: body, Head: rec.Branch, Base: base, Draft: true,
	})
	var ae *gh.ActionsPullsError
	if errors.As(err, &ae) {
		// The work is on its branch: the person can open the pull
		// request themselves, or let the Action do so next time.
		return fmt.Errorf("%w; the work is on branch %s: open its pull request at %s/compare/%s...%s?expand=1",
			err, rec.Branch, r.repo.HTMLURL, base, rec.Branch)
	}
	if err != nil {
		return err
	}
	rec.PRURL, rec.PullRequest = pr.HTMLURL, pr.Number
	return r.markReady(ctx, s, pr)
}

// markReady marks a draft pull request of core's ready for review when the
// contract held and the user asked for it (--ready). Every other pull
// request stays a draft.
func (r *Repo) markReady(ctx context.Context, s *Work, pr *gh.PullRequest) error {
	if !pr.Draft || !s.Ready || !s.Held || s.Exhausted {
		return nil
	}
	if err := r.client.MarkReadyForReview(ctx, pr.NodeID); err != nil {
		return fmt.Errorf("mark pull request #%d ready for review: %w", pr.Number, err)
	}
	return nil
}

// push lands the session's commit on its branch without force, through
// the Git Data API (gitdata.go), so that GitHub signs it for an App, or,
// signed with the user's key (Record.Signed), with git. A
// branch that moved lands nothing: rebasing the work onto the branch's
// new head would push a tree the checks never ran on.
func (r *Repo) push(ctx context.Context, s *Work) error {
	if !s.Signed {
		return r.pushAPI(ctx, s)
	}
	// Signed with the user's key: the API would make another commit,
	// without that signature.
	if err := r.pushGit(ctx, s.Workspace, s.Branch, s.Commit); err != nil {
		return err
	}
	s.Signature = r.signature(ctx, s.Commit)
	return nil
}

// pushGit pushes commit sha to branch with git, without force.
func (r *Repo) pushGit(ctx context.Context, ws, branch, sha string) error {
	g, err := r.authed(ctx)
	if err != nil {
		return fmt.Errorf("push %s to %s: %w", branch, r.Name(), err)
	}
	_, err = g.run(ctx, ws, "push", "--quiet", "--no-verify", "origin", sha+":refs/heads/"+branch)
	if err == nil {
		return nil
	}
	if !rejected(err) {
		return fmt.Errorf("push %s to %s: %w", branch, r.Name(), err)
	}
	return &MovedError{branch: branch, commit: sha, workspace: ws}
}

// MovedError is a push refused because the branch moved since the
// session started: someone else's commits, the user's to sort out
// (FailConfiguration).
type MovedError struct {
	branch, commit, workspace string
}

func (e *MovedError) Error() string {
	return fmt.Sprintf("not landed: the branch %s moved since the session started (someone pushed to it), and core pushes only the tree its checks ran on, which a rebase would change: nothing was pushed. The checked commit %s stays on the branch %s of the workspace %s: merge the branch's new commits into it and push it yourself, or start a new session from the branch's new head",
		e.branch, clip.Hash(e.commit), e.branch, e.workspace)
}

func rejected(err error) bool {
	m := err.Error()
	return strings.Contains(m, "[rejected]") || strings.Contains(m, "non-fast-forward") || strings.Contains(m, "fetch first")
}

// PullTitle is the title of the session's pull request, marked when the
// budget stopped the run or the contract broke.
func (s *Work) PullTitle() string {
	title := pullTitle(s)
	if s.Exhausted {
		return BudgetTitlePrefix + title
	}
	if s.Broken {
		return contract.FailingTitlePrefix + title
	}
	return title
}

// pullTitle is the first line of the done summary, or the prompt.
func pullTitle(rec *Work) string {
	first, _, _ := strings.Cut(strings.TrimSpace(rec.Summary), "\n")
	if first == "" {
		first = strings.TrimSpace(rec.Prompt)
	}
	if first == "" && rec.Issue != 0 {
		first = fmt.Sprintf("Fix #%d", rec.Issue)
	}
	title, _ := clip.Subject(first, 100)
	return title
}

// PullBody is the body of the draft pull request a session opens: what was
// done, the contract's table and verdict (or the UNVERIFIED warning), the
// turns and tokens, the session, and the markers.
func (s *Work) PullBody() string {
	rec := s
	var b strings.Builder
	s.writeSpent(&b)
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		b.WriteString(sum + "\n\n")
	}
	s.writeVerification(&b)
	fmt.Fprintf(&b, "\n### Session\n\n- session: `%s`\n- turns: %d, tokens: %d (prompt %d, completion %d)\n- model: `%s`, verify tier: `%s`\n",
		rec.ID, rec.Turns, rec.Tokens, rec.PromptTokens, rec.CompletionTokens, rec.Model, rec.Verify)
	fmt.Fprintf(&b, "- cost: %s\n", budget.CostText(rec.CostUSD))
	if rec.Issue != 0 {
		fmt.Fprintf(&b, "\nCloses #%d\n", rec.Issue)
	}
	b.WriteString("\n" + status.SessionMarker(rec.ID) + "\n")
	if rec.Issue != 0 {
		b.WriteString(status.IssueMarker(rec.Issue) + "\n")
	}
	return b.String()
}

// PullComment reports a session that landed on an open pull request.
func (s *Work) PullComment() string {
	rec := s
	var b strings.Builder
	fmt.Fprintf(&b, "core pushed %s onto this pull request (session `%s`).\n\n", clip.Hash(rec.Commit), rec.ID)
	s.writeSpent(&b)
	if s.Broken {
		b.WriteString("**" + strings.TrimSpace(contract.FailingTitlePrefix) + "** " + s.ContractLine + ".\n\n")
	}
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		b.WriteString(sum + "\n\n")
	}
	s.writeVerification(&b)
	fmt.Fprintf(&b, "\nTurns: %d, tokens: %d.\n\n%s\n", rec.Turns, rec.Tokens, status.SessionMarker(rec.ID))
	return b.String()
}

// writeSpent says, when the budget stopped the run, that the work is
// unfinished and how much was spent of what.
func (s *Work) writeSpent(b *strings.Builder) {
	if s.Exhausted {
		fmt.Fprintf(b, "**%s** The run stopped before its next request: %s. The work is unfinished and unchecked; `%s` tops the budget up and continues it.\n\n",
			strings.TrimSpace(BudgetTitlePrefix), s.Budget.Line, s.Budget.TopUp)
	}
}

// writeVerification writes the contract's table, and the line naming
// the receipt when there is one.
func (s *Work) writeVerification(b *strings.Builder) {
	b.WriteString(s.Verification)
	if s.ReceiptHash != "" {
		b.WriteString("\n" + receipt.SummaryLine(s.ReceiptHash) + "\n")
	}
	if s.Signature != "" {
		fmt.Fprintf(b, "\nCommit %s signature: %s.\n", clip.Hash(s.Commit), s.Signature)
	}
}

// Package review is what a review run (core review, /core review, the
// core:review label, the Action's mode: review) does differently from a
// fix: the model is offered only the read tools, a call to a write tool is
// answered with why not, and the run's result is not a commit but one
// pull request review per head (or, locally, the same text printed):
// the model's summary and the contract's table of the checks the harness
// ran on the base and on the head.
package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/tools"
)

// Kind is a review run's kind in its record and report.json.
const Kind = "review"

// Refusal answers a review's model that calls a write tool.
const Refusal = "this is a review: it changes no code; say what you found in done"

// withheld are the tools a review does not offer: those that write files,
// file issues, or run commands in the workspace (run_shell is withheld
// until reproductions run in a scratch copy of the head).
var withheld = []string{"write_file", "edit_file", "run_shell", "file_issue"}

// Tools is set without the write tools: they are not offered, and a call
// to one is answered with Refusal.
func Tools(set *tools.Set) *tools.Set { return set.Without(Refusal, withheld...) }

// Rules are the system prompt's rules for a run of kind: a review's, or
// nil (the rules of a run that changes code) for another kind.
func Rules(kind string) []string {
	if kind != Kind {
		return nil
	}
	return []string{
		"Paths are relative to the workspace root. Nothing outside the workspace, and nothing inside .git, can be read.",
		"This is a review: you change no file and run no command in the workspace. git_diff shows what the change under review does; read the code around it before you judge it.",
		"Report each thing wrong with the change with the finding tool, one a call, most serious first: its file, its line on the head and what is wrong. A finding without a reproduction is only listed, folded, never a comment on a line.",
		"A reproduction is a test or script (path and content) and the command that runs it: it must FAIL on the head because of the bug, with expect the text of that failure, and PASS on the base. The harness runs it on both, each in a scratch copy, and confirms the finding only then, whatever you claim. Read its reply, and to improve a reproduction report the same file, line and claim again.",
		"Then call done with your review's summary; say so when you found nothing wrong.",
	}
}

// Goal makes a session a review (session.Goal.Review): of the head it
// starts from (a pull request's, or a local repository's HEAD) against
// Base. The model is offered only the read tools; the contract's checks
// run on the base and on the head's tree; the model's summary and the
// checks' table become one review of the head (or, on this machine, are
// printed). Nothing is committed, pushed or opened.
type Goal struct {
	// Base is the branch or commit the head is reviewed against; empty
	// means the pull request's base branch.
	Base string
}

// Git runs git in dir and returns its trimmed standard output.
type Git func(ctx context.Context, dir string, args ...string) (string, error)

// HeadRef keeps, in a review's workspace, the head it reviews.
const HeadRef = "refs/core/review/head"

// Prepare makes the clone ws, checked out at head, a review of head
// against base, and returns the commit the review starts from: the merge
// base of head and base (origin's branch base, else base as a commit or a
// local ref). The workspace's HEAD moves there with its files left at the
// head's, so git_diff shows what the head changes; head is kept under
// HeadRef.
func Prepare(ctx context.Context, git Git, ws, head, base string) (string, error) {
	if base == "" {
		return "", errors.New("a review needs the branch or commit to review against: --base main")
	}
	mb := ""
	for _, ref := range []string{"refs/remotes/origin/" + base, base} {
		if out, err := git(ctx, ws, "merge-base", "--end-of-options", head, ref); err == nil && out != "" {
			mb = out
			break
		}
	}
	if mb == "" {
		return "", fmt.Errorf("%q is not a branch or commit that shares history with the head %s: name the base with --base", base, clip.Hash(head))
	}
	if _, err := git(ctx, ws, "update-ref", HeadRef, head); err != nil {
		return "", fmt.Errorf("keep the head %s: %w", clip.Hash(head), err)
	}
	if _, err := git(ctx, ws, "reset", "--quiet", "--soft", mb); err != nil {
		return "", fmt.Errorf("start the review at %s: %w", clip.Hash(mb), err)
	}
	return mb, nil
}

// FetchBase fills what a partial clone lacks of the base mb: the blobs of
// the files the head changed, fetched in one batch (git diff's prefetch)
// by git, which must carry the repository's credentials. What reads the
// base later (its instructions, the contract's baselines, the
// classification, the reproductions) then fetches nothing: a lazy fetch
// has no credentials.
func FetchBase(ctx context.Context, git Git, ws, mb, head string) error {
	if _, err := git(ctx, ws, "diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--numstat", mb, head, "--"); err != nil {
		return fmt.Errorf("fetch the base %s: %w", clip.Hash(mb), err)
	}
	return nil
}

package tools

import (
	"context"
	"fmt"
	"strings"
)

// IssueFiler files issues in the session's repository; the GitHub origin
// provides one.
type IssueFiler interface {
	FileIssue(ctx context.Context, title, body string) (url string, err error)
}

// DeclinedIssue is what the model sees when the human did not approve
// filing an issue.
const DeclinedIssue = "declined: the human operator did not approve filing this issue"

type fileIssue struct{}

func (fileIssue) Name() string { return "file_issue" }

func (fileIssue) Doc() string {
	return `file_issue: file an issue in the repository, for a problem found on the way
that is not part of the task.
  tool: file_issue
  title: "pager.Next skips the last page"
  body: "Found while fixing #12: Next returns io.EOF one page early."
A human must approve it; unattended it is declined.`
}

func (t fileIssue) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	title, err := args.String("title")
	if err != nil {
		return fail(t.Name(), err)
	}
	body, err := args.OptionalString("body", "")
	if err != nil {
		return fail(t.Name(), err)
	}
	title = strings.TrimSpace(title)
	if title == "" {
		return fail(t.Name(), &ArgError{Arg: "title", Msg: "must not be empty"})
	}
	if env.Issues == nil {
		return Result{Output: "file_issue: this repository is not on GitHub, so no issue can be filed; mention the problem in done's summary instead", Target: title}, nil
	}
	approver := env.Approver
	if approver == nil {
		approver = DenyApprover{}
	}
	ok, err := approver.Approve(ctx, fmt.Sprintf("file_issue: %s\n%s", title, body))
	if err != nil {
		return Result{}, fmt.Errorf("file_issue: ask for approval: %w", err)
	}
	if !ok {
		return Result{Output: DeclinedIssue, Target: title, Failed: DeclinedIssue}, nil
	}
	url, err := env.Issues.FileIssue(ctx, title, body)
	if err != nil {
		// GitHub refusing is something the model can only report.
		return Result{Output: "file_issue failed: " + err.Error(), Target: title}, nil
	}
	return Result{Output: "filed " + url, Target: title}, nil
}

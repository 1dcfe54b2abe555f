package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// maxCheckRunOutput bounds what CheckRunNamed keeps of a summary or a
// text: GitHub's own limit on each.
const maxCheckRunOutput = 65535

// ErrNoCheckRun is the error of a commit without the check run asked for.
var ErrNoCheckRun = errors.New("no such check run")

// CheckRunOutput is what a check run says: its summary and text, as its
// maker wrote them (not sanitized: a receipt is checked by its bytes).
type CheckRunOutput struct {
	ID                     int64
	HeadSHA, Conclusion    string
	Summary, Text, HTMLURL string
}

// CheckRunNamed returns the latest check run named checkName on ref (a
// branch, tag or SHA) of owner/name; ErrNoCheckRun when there is none.
func (c *Client) CheckRunNamed(ctx context.Context, owner, name, ref, checkName string) (*CheckRunOutput, error) {
	opts := &github.ListCheckRunsOptions{CheckName: github.String(checkName), ListOptions: github.ListOptions{PerPage: 100}}
	res, _, err := c.gh.Checks.ListCheckRunsForRef(ctx, owner, name, ref, opts)
	if err != nil {
		if s := httpStatus(err); s == http.StatusNotFound || s == http.StatusUnprocessableEntity {
			return nil, fmt.Errorf("no commit %q in %s/%s to read checks of", ref, owner, name)
		}
		return nil, fmt.Errorf("list check runs of %s in %s/%s: %w", ref, owner, name, err)
	}
	for _, run := range res.CheckRuns {
		if run.GetName() != checkName {
			continue
		}
		out := run.GetOutput()
		return &CheckRunOutput{
			ID: run.GetID(), HeadSHA: run.GetHeadSHA(), Conclusion: run.GetConclusion(), HTMLURL: run.GetHTMLURL(),
			Summary: cut(out.GetSummary()), Text: cut(out.GetText()),
		}, nil
	}
	return nil, fmt.Errorf("%w: %s on %s in %s/%s", ErrNoCheckRun, checkName, ref, owner, name)
}

func cut(s string) string {
	if len(s) > maxCheckRunOutput {
		return s[:maxCheckRunOutput]
	}
	return s
}

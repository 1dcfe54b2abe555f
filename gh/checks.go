package gh

import (
	"context"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"
)

// Limits on what FailingChecks reads of a check run.
const (
	maxAnnotations = 50
	maxCheckText   = 4 << 10 // bytes of a summary, text or message
)

// Check is a check run that failed, as a session needs to see it.
type Check struct {
	Name, Conclusion, Title, Summary, Text, HTMLURL string
	Annotations                                     []Annotation
}

// Annotation is a check run's note on lines of a file.
type Annotation struct {
	Path               string
	StartLine, EndLine int
	// Level is "failure", "warning" or "notice".
	Level, Title, Message string
}

// failed reports whether a completed run's conclusion asks for a fix.
func failed(conclusion string) bool {
	switch conclusion {
	case "failure", "timed_out", "cancelled", "action_required":
		return true
	}
	return false
}

// FailingChecks returns the check runs on ref (a branch, tag or SHA; the
// latest run of each name) that completed as failure, timed_out, cancelled
// or action_required, each with its first 50 annotations. Texts are
// sanitized and cut to 4 KiB.
func (c *Client) FailingChecks(ctx context.Context, owner, name, ref string) ([]Check, error) {
	// No status filter: a re-run still in progress supersedes its failure.
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var out []Check
	for {
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, owner, name, ref, opts)
		if err != nil {
			if s := httpStatus(err); s == http.StatusNotFound || s == http.StatusUnprocessableEntity {
				return nil, fmt.Errorf("no commit %q in %s/%s to read checks of", ref, owner, name)
			}
			return nil, fmt.Errorf("list check runs of %s in %s/%s: %w", ref, owner, name, err)
		}
		for _, run := range res.CheckRuns {
			if run.GetStatus() != "completed" || !failed(run.GetConclusion()) {
				continue
			}
			ch, err := c.check(ctx, owner, name, run)
			if err != nil {
				return nil, err
			}
			out = append(out, ch)
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// check turns a failed run into a Check, reading its annotations.
func (c *Client) check(ctx context.Context, owner, name string, run *github.CheckRun) (Check, error) {
	o := run.GetOutput()
	ch := Check{
		Name:       Sanitize(run.GetName()),
		Conclusion: run.GetConclusion(),
		Title:      capText(Sanitize(o.GetTitle()), maxCheckText),
		Summary:    capText(Sanitize(o.GetSummary()), maxCheckText),
		Text:       capText(Sanitize(o.GetText()), maxCheckText),
		HTMLURL:    run.GetHTMLURL(),
	}
	if o.GetAnnotationsCount() == 0 {
		return ch, nil
	}
	opts := &github.ListOptions{PerPage: maxAnnotations}
	for len(ch.Annotations) < maxAnnotations {
		page, resp, err := c.gh.Checks.ListCheckRunAnnotations(ctx, owner, name, run.GetID(), opts)
		if err != nil {
			return Check{}, fmt.Errorf("list annotations of check %q in %s/%s: %w", run.GetName(), owner, name, err)
		}
		for _, a := range page[:min(len(page), maxAnnotations-len(ch.Annotations))] {
			ch.Annotations = append(ch.Annotations, Annotation{
				Path:      a.GetPath(),
				StartLine: a.GetStartLine(),
				EndLine:   a.GetEndLine(),
				Level:     a.GetAnnotationLevel(),
				Title:     capText(Sanitize(a.GetTitle()), maxCheckText),
				Message:   capText(Sanitize(a.GetMessage()), maxCheckText),
			})
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return ch, nil
}

// capText cuts s to at most limit bytes on a rune boundary, and says so.
func capText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more bytes cut]", len(s)-cut)
}

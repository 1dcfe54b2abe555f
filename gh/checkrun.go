package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v62/github"
)

// MaxCheckRunText bounds a check run's summary and text, as GitHub does
// (65,535 characters); MaxCheckRunAnnotations bounds the annotations of
// one request.
const (
	MaxCheckRunText        = 65535
	MaxCheckRunAnnotations = 50
)

// CheckRunReport is what core says in a check run it makes: its name, the
// commit, where it stands (Status "in_progress" or "completed", with its
// Conclusion), where to see more (DetailsURL), the session (ExternalID),
// and its output.
type CheckRunReport struct {
	Name, HeadSHA          string
	Status, Conclusion     string
	DetailsURL, ExternalID string
	Title, Summary, Text   string
	Annotations            []Annotation
}

// ErrCheckRunsRefused is the error of a token that may not make check
// runs (only a GitHub App's installation token may: a personal token gets
// 403); the error's text is GitHub's words.
var ErrCheckRunsRefused = errors.New("this token may not make check runs")

// refusedError is a 403 on a check run, with GitHub's message.
type refusedError struct{ message string }

func (e *refusedError) Error() string        { return e.message }
func (e *refusedError) Is(target error) bool { return target == ErrCheckRunsRefused }

// checkRunError wraps err of what, making a 403 an ErrCheckRunsRefused.
func checkRunError(what, owner, name string, err error) error {
	var er *github.ErrorResponse
	if httpStatus(err) == http.StatusForbidden && errors.As(err, &er) {
		return &refusedError{message: er.Message}
	}
	return fmt.Errorf("%s in %s/%s: %w", what, owner, name, err)
}

// CheckRunWords is what to say of a check run GitHub refused: its own
// words, and for a token that may not make one, which token may.
func CheckRunWords(err error) string {
	if errors.Is(err, ErrCheckRunsRefused) {
		return err.Error() + " (only a GitHub App's token, or the Action's GITHUB_TOKEN, may make check runs)"
	}
	return err.Error()
}

// CheckRunRef names a check run: its id and its page.
type CheckRunRef struct {
	ID      int64
	HTMLURL string
}

// CreateCheckRun makes check run r on owner/name.
func (c *Client) CreateCheckRun(ctx context.Context, owner, name string, r CheckRunReport) (CheckRunRef, error) {
	opts := github.CreateCheckRunOptions{
		Name: r.Name, HeadSHA: r.HeadSHA, Status: optional(r.Status), Conclusion: optional(r.Conclusion),
		DetailsURL: optional(r.DetailsURL), ExternalID: optional(r.ExternalID), Output: r.output(),
	}
	now := github.Timestamp{Time: time.Now().UTC()}
	opts.StartedAt = &now
	if r.Status == "completed" {
		opts.CompletedAt = &now
	}
	run, _, err := c.gh.Checks.CreateCheckRun(ctx, owner, name, opts)
	if err != nil {
		return CheckRunRef{}, checkRunError(fmt.Sprintf("create check run %s on %s", r.Name, r.HeadSHA), owner, name, err)
	}
	return CheckRunRef{ID: run.GetID(), HTMLURL: run.GetHTMLURL()}, nil
}

// UpdateCheckRun updates check run id of owner/name to r. Annotations add
// to those the run has.
func (c *Client) UpdateCheckRun(ctx context.Context, owner, name string, id int64, r CheckRunReport) error {
	opts := github.UpdateCheckRunOptions{
		Name: r.Name, Status: optional(r.Status), Conclusion: optional(r.Conclusion),
		DetailsURL: optional(r.DetailsURL), ExternalID: optional(r.ExternalID), Output: r.output(),
	}
	if r.Status == "completed" {
		opts.CompletedAt = &github.Timestamp{Time: time.Now().UTC()}
	}
	if _, _, err := c.gh.Checks.UpdateCheckRun(ctx, owner, name, id, opts); err != nil {
		return checkRunError(fmt.Sprintf("update check run %s (%d)", r.Name, id), owner, name, err)
	}
	return nil
}

// FindCheckRun returns the latest check run named checkName on commit sha
// of owner/name; its ID is 0 when there is none.
func (c *Client) FindCheckRun(ctx context.Context, owner, name, sha, checkName string) (CheckRunRef, error) {
	opts := &github.ListCheckRunsOptions{CheckName: &checkName, ListOptions: github.ListOptions{PerPage: 1}}
	res, _, err := c.gh.Checks.ListCheckRunsForRef(ctx, owner, name, sha, opts)
	if err != nil {
		return CheckRunRef{}, fmt.Errorf("find check run %s on %s in %s/%s: %w", checkName, sha, owner, name, err)
	}
	if len(res.CheckRuns) == 0 {
		return CheckRunRef{}, nil
	}
	return CheckRunRef{ID: res.CheckRuns[0].GetID(), HTMLURL: res.CheckRuns[0].GetHTMLURL()}, nil
}

// PutCheckRun makes r the one check run named r.Name on r.HeadSHA: it
// updates the latest one there, or creates it. An updated run keeps the
// annotations it has (GitHub only adds): r's that it has already (the
// same path, line and title) are not sent again.
func (c *Client) PutCheckRun(ctx context.Context, owner, name string, r CheckRunReport) (CheckRunRef, error) {
	found, err := c.FindCheckRun(ctx, owner, name, r.HeadSHA, r.Name)
	if err != nil {
		return CheckRunRef{}, err
	}
	if found.ID == 0 {
		return c.CreateCheckRun(ctx, owner, name, r)
	}
	if len(r.Annotations) > 0 {
		had, _, err := c.gh.Checks.ListCheckRunAnnotations(ctx, owner, name, found.ID, &github.ListOptions{PerPage: 100})
		if err != nil {
			return CheckRunRef{}, checkRunError(fmt.Sprintf("read the annotations of check run %s (%d)", r.Name, found.ID), owner, name, err)
		}
		seen := map[string]bool{}
		for _, a := range had {
			seen[fmt.Sprintf("%s:%d:%s", a.GetPath(), a.GetStartLine(), a.GetTitle())] = true
		}
		var fresh []Annotation
		for _, a := range r.Annotations {
			if !seen[fmt.Sprintf("%s:%d:%s", a.Path, a.StartLine, a.Title)] {
				fresh = append(fresh, a)
			}
		}
		r.Annotations = fresh
	}
	return found, c.UpdateCheckRun(ctx, owner, name, found.ID, r)
}

// output is the run's output, nil when it has no title.
func (r CheckRunReport) output() *github.CheckRunOutput {
	if r.Title == "" {
		return nil
	}
	o := &github.CheckRunOutput{
		Title:   &r.Title,
		Summary: github.String(capText(r.Summary, MaxCheckRunText-64)),
	}
	if r.Text != "" {
		o.Text = github.String(capText(r.Text, MaxCheckRunText-64))
	}
	for _, a := range r.Annotations[:min(len(r.Annotations), MaxCheckRunAnnotations)] {
		o.Annotations = append(o.Annotations, &github.CheckRunAnnotation{
			Path: github.String(a.Path), StartLine: github.Int(a.StartLine), EndLine: github.Int(max(a.EndLine, a.StartLine)),
			AnnotationLevel: github.String(a.Level), Title: optional(a.Title), Message: github.String(capText(a.Message, MaxCheckRunText-64)),
		})
	}
	return o
}

// optional is nil for "", else a pointer to s.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

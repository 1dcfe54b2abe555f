package ghfake

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxCheckText is GitHub's bound on a check run's summary and text, in
// characters; maxAnnotationsPerRequest its bound on the annotations of
// one request.
const (
	maxCheckText             = 65535
	maxAnnotationsPerRequest = 50
)

// checkRunInput is the body of POST and PATCH .../check-runs.
type checkRunInput struct {
	Name        *string        `json:"name"`
	HeadSHA     string         `json:"head_sha"`
	DetailsURL  *string        `json:"details_url"`
	ExternalID  *string        `json:"external_id"`
	Status      *string        `json:"status"`
	Conclusion  *string        `json:"conclusion"`
	StartedAt   *string        `json:"started_at"`
	CompletedAt *string        `json:"completed_at"`
	Output      *checkOutputIn `json:"output"`
}

type checkOutputIn struct {
	Title       *string        `json:"title"`
	Summary     *string        `json:"summary"`
	Text        *string        `json:"text"`
	Annotations []annotationIn `json:"annotations"`
}

type annotationIn struct {
	Path            string  `json:"path"`
	StartLine       int     `json:"start_line"`
	EndLine         int     `json:"end_line"`
	AnnotationLevel string  `json:"annotation_level"`
	Message         string  `json:"message"`
	Title           *string `json:"title"`
	RawDetails      *string `json:"raw_details"`
}

// POST /repos/{owner}/{repo}/check-runs: only a GitHub App (a token whose
// login ends in "[bot]": an installation's, or the Actions GITHUB_TOKEN)
// may create a check run, on a commit of the repository.
func (g *GitHub) createCheckRun(c *apiCall) {
	if !strings.HasSuffix(c.login, "[bot]") {
		c.fail(http.StatusForbidden, "You must authenticate via a GitHub App.")
		return
	}
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	if in.Name == nil || *in.Name == "" {
		c.invalid(fieldError{Resource: "CheckRun", Field: "name", Code: "missing_field"})
		return
	}
	sha, err := g.runGit(c.r.Context(), c.repo.dir, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", in.HeadSHA+"^{commit}")
	if in.HeadSHA == "" || err != nil || !strings.EqualFold(sha, in.HeadSHA) {
		c.invalid(fieldError{Resource: "CheckRun", Field: "head_sha", Code: "invalid", Message: "No commit found for SHA: " + in.HeadSHA})
		return
	}
	st := &checkRunState{CheckRun: CheckRun{HeadSHA: sha, Status: "queued", App: c.login}, repo: c.repo, started: ghNow()}
	if !c.applyCheckRun(st, &in) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ext.checkRuns == nil {
		g.ext.checkRuns = make(map[int64]*checkRunState)
	}
	st.id, st.suite = g.nextID(), g.nextID()
	st.HTMLURL = c.repo.HTMLURL() + "/runs/" + strconv.FormatInt(st.id, 10)
	g.ext.checkRuns[st.id] = st
	c.json(http.StatusCreated, c.repo.wireCheckRun(st))
}

// PATCH /repos/{owner}/{repo}/check-runs/{id}: only the App that created
// a run may update it; annotations add to the run's.
func (g *GitHub) updateCheckRun(c *apiCall) {
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	g.mu.Lock()
	cr := c.checkRunLocked()
	if cr == nil {
		g.mu.Unlock()
		return
	}
	if cr.App == "" || cr.App != c.login {
		g.mu.Unlock()
		c.fail(http.StatusForbidden, "Invalid app_id `0` - check run can only be modified by the GitHub App that created it.")
		return
	}
	next := *cr
	next.Annotations = slices.Clone(cr.Annotations)
	g.mu.Unlock()
	if in.Name != nil && *in.Name == "" {
		c.invalid(fieldError{Resource: "CheckRun", Field: "name", Code: "missing_field"})
		return
	}
	if !c.applyCheckRun(&next, &in) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	*cr = next
	c.json(http.StatusOK, c.repo.wireCheckRun(cr))
}

// applyCheckRun sets what in asks for on st, answering 422 and leaving st
// as it may be (callers apply to a copy) when in breaks one of GitHub's
// rules.
func (c *apiCall) applyCheckRun(st *checkRunState, in *checkRunInput) bool {
	if msg := checkRunRule(in); msg != "" {
		c.invalid(fieldError{Resource: "CheckRun", Code: "custom", Message: msg})
		return false
	}
	if in.Name != nil {
		st.Name = *in.Name
	}
	st.DetailsURL = cmp.Or(deref(in.DetailsURL), st.DetailsURL)
	st.ExternalID = cmp.Or(deref(in.ExternalID), st.ExternalID)
	if t, ok := parseTime(in.StartedAt); ok {
		st.started = t
	}
	if in.Status != nil && *in.Status != "completed" {
		// In progress again (a re-run): no conclusion until it completes.
		st.Status, st.Conclusion, st.completed = *in.Status, "", time.Time{}
	}
	if in.Conclusion != nil {
		st.Status, st.Conclusion = "completed", *in.Conclusion
	}
	if st.Status == "completed" && st.completed.IsZero() {
		st.completed = ghNow()
		if t, ok := parseTime(in.CompletedAt); ok {
			st.completed = t
		}
	}
	if o := in.Output; o != nil {
		st.Title, st.Summary = deref(o.Title), deref(o.Summary)
		st.Text = cmp.Or(deref(o.Text), st.Text)
		for _, a := range o.Annotations {
			st.Annotations = append(st.Annotations, Annotation{
				Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine, AnnotationLevel: a.AnnotationLevel,
				Message: a.Message, Title: deref(a.Title), RawDetails: deref(a.RawDetails),
			})
		}
	}
	return true
}

// checkRunRule is what GitHub says of a request that breaks a rule of
// check runs, or "".
func checkRunRule(in *checkRunInput) string {
	status, conclusion := deref(in.Status), deref(in.Conclusion)
	switch status {
	case "", "queued", "in_progress", "completed":
	default:
		return fmt.Sprintf("Status %q is not one of queued, in_progress, completed", status)
	}
	switch conclusion {
	case "", "action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out":
	default:
		return fmt.Sprintf("Conclusion %q is not one of action_required, cancelled, failure, neutral, success, skipped, timed_out", conclusion)
	}
	switch {
	case status == "completed" && conclusion == "":
		return "Conclusion can't be blank when status is completed"
	case conclusion != "" && status != "" && status != "completed":
		return "Status must be completed when a conclusion is given"
	case conclusion == "action_required" && deref(in.DetailsURL) == "":
		return "Details url can't be blank when conclusion is action_required"
	}
	for _, t := range []*string{in.StartedAt, in.CompletedAt} {
		if _, ok := parseTime(t); t != nil && !ok {
			return fmt.Sprintf("Time %q is not an ISO 8601 timestamp", *t)
		}
	}
	return outputRule(in.Output)
}

// outputRule checks a check run's output.
func outputRule(o *checkOutputIn) string {
	switch {
	case o == nil:
		return ""
	case deref(o.Title) == "":
		return "Output title can't be blank"
	case deref(o.Summary) == "":
		return "Output summary can't be blank"
	case utf8.RuneCountInString(deref(o.Summary)) > maxCheckText:
		return fmt.Sprintf("Output summary is too long (maximum is %d characters)", maxCheckText)
	case utf8.RuneCountInString(deref(o.Text)) > maxCheckText:
		return fmt.Sprintf("Output text is too long (maximum is %d characters)", maxCheckText)
	case len(o.Annotations) > maxAnnotationsPerRequest:
		return fmt.Sprintf("Only %d annotations are allowed per request", maxAnnotationsPerRequest)
	}
	for i, a := range o.Annotations {
		switch {
		case a.Path == "" || a.StartLine <= 0 || a.EndLine <= 0 || a.Message == "":
			return fmt.Sprintf("Annotation %d needs a path, a start_line, an end_line and a message", i)
		case a.EndLine < a.StartLine:
			return fmt.Sprintf("Annotation %d ends before it starts", i)
		case a.AnnotationLevel != "notice" && a.AnnotationLevel != "warning" && a.AnnotationLevel != "failure":
			return fmt.Sprintf("Annotation %d: annotation_level %q is not notice, warning or failure", i, a.AnnotationLevel)
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// parseTime parses an ISO 8601 timestamp; ok is false for nil or a bad one.
func parseTime(s *string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, *s)
	return t.UTC().Truncate(time.Second), err == nil
}

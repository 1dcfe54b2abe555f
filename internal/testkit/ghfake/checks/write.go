package checks

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

// runInput is the body of POST and PATCH .../check-runs.
type runInput struct {
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
func (s *Server) create(c Call, repo Repo) {
	if !strings.HasSuffix(repo.Login, "[bot]") {
		c.Fail(http.StatusForbidden, "You must authenticate via a GitHub App.")
		return
	}
	var in runInput
	if !c.Decode(&in) {
		return
	}
	if in.Name == nil || *in.Name == "" {
		c.Invalid("CheckRun", "name", "missing_field", "")
		return
	}
	sha, err := s.host.Git(c.Request().Context(), repo.Dir, "rev-parse", "--verify", "--quiet", "--end-of-options", in.HeadSHA+"^{commit}")
	if in.HeadSHA == "" || err != nil || !strings.EqualFold(sha, in.HeadSHA) {
		c.Invalid("CheckRun", "head_sha", "invalid", "No commit found for SHA: "+in.HeadSHA)
		return
	}
	st := &runState{Run: Run{HeadSHA: sha, Status: "queued", App: repo.Login}, dir: repo.Dir, started: now()}
	if !applyRun(c, st, &in) {
		return
	}
	st.id, st.suite = s.host.NextID(), s.host.NextID()
	st.HTMLURL = repo.HTMLURL + "/runs/" + strconv.FormatInt(st.id, 10)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[st.id] = st
	c.JSON(http.StatusCreated, s.wireRun(repo, st))
}

// PATCH /repos/{owner}/{repo}/check-runs/{id}: only the App that created
// a run may update it; annotations add to the run's.
func (s *Server) update(c Call, repo Repo) {
	var in runInput
	if !c.Decode(&in) {
		return
	}
	s.mu.Lock()
	cr := s.runLocked(c, repo)
	if cr == nil {
		s.mu.Unlock()
		return
	}
	if cr.App == "" || cr.App != repo.Login {
		s.mu.Unlock()
		c.Fail(http.StatusForbidden, "Invalid app_id `0` - check run can only be modified by the GitHub App that created it.")
		return
	}
	next := *cr
	next.Annotations = slices.Clone(cr.Annotations)
	s.mu.Unlock()
	if in.Name != nil && *in.Name == "" {
		c.Invalid("CheckRun", "name", "missing_field", "")
		return
	}
	if !applyRun(c, &next, &in) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	*cr = next
	c.JSON(http.StatusOK, s.wireRun(repo, cr))
}

// applyRun sets what in asks for on st, answering 422 and leaving st as
// it may be (callers apply to a copy) when in breaks one of GitHub's
// rules.
func applyRun(c Call, st *runState, in *runInput) bool {
	if msg := runRule(in); msg != "" {
		c.Invalid("CheckRun", "", "custom", msg)
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
		st.completed = now()
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

// runRule is what GitHub says of a request that breaks a rule of check
// runs, or "".
func runRule(in *runInput) string {
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

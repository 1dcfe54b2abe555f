package checks

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Run is a check run on a commit, as a CI system reports it.
type Run struct {
	// HeadSHA is the full SHA of the commit checked.
	HeadSHA string
	Name    string
	// Status is "queued", "in_progress" or "completed"; empty means
	// completed when Conclusion is set, else queued.
	Status string
	// Conclusion of a completed run: "success", "failure", "neutral",
	// "cancelled", "skipped", "timed_out" or "action_required".
	Conclusion           string
	Title, Summary, Text string
	Annotations          []Annotation
	// HTMLURL defaults to the run's page under the repository.
	HTMLURL string
	// DetailsURL defaults to HTMLURL; ExternalID is the reporter's own id.
	DetailsURL, ExternalID string
	// App is the bot login of the App that created the run through the
	// API; "" (Add's) is GitHub Actions. Runs sets ID, and Started and
	// Completed (zero while the run is not completed).
	App                string
	ID                 int64
	Started, Completed time.Time
}

// Annotation is a check run's note on lines of a file.
type Annotation struct {
	Path               string
	StartLine, EndLine int // EndLine defaults to StartLine
	// AnnotationLevel is "notice", "warning" or "failure".
	AnnotationLevel            string
	Message, Title, RawDetails string
}

type runState struct {
	Run
	id, suite          int64
	dir                string // the repository's, as Repo.Dir
	started, completed time.Time
}

// Add adds a check run to repo and returns its id.
func (s *Server) Add(repo Repo, cr Run) (int64, error) {
	if err := validRun(&cr); err != nil {
		return 0, err
	}
	id, suite := s.host.NextID(), s.host.NextID()
	st := &runState{Run: cr, id: id, suite: suite, dir: repo.Dir, started: now()}
	if cr.Status == "completed" {
		st.completed = st.started
	}
	st.HTMLURL = cmp.Or(st.HTMLURL, repo.HTMLURL+"/runs/"+strconv.FormatInt(st.id, 10))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[st.id] = st
	return st.id, nil
}

// validRun checks a run and fills in its defaults.
func validRun(cr *Run) error {
	cr.HeadSHA = strings.ToLower(cr.HeadSHA)
	if !isFullSHA(cr.HeadSHA) {
		return fmt.Errorf("HeadSHA %q is not a full commit SHA", cr.HeadSHA)
	}
	if cr.Name == "" {
		return errors.New("a check run needs a name")
	}
	if cr.Status == "" {
		cr.Status = "queued"
		if cr.Conclusion != "" {
			cr.Status = "completed"
		}
	}
	switch cr.Status {
	case "queued", "in_progress":
		if cr.Conclusion != "" {
			return fmt.Errorf("a %s run has no conclusion, got %q", cr.Status, cr.Conclusion)
		}
	case "completed":
		switch cr.Conclusion {
		case "success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required":
		default:
			return fmt.Errorf("conclusion %q of a completed run is not one GitHub knows", cr.Conclusion)
		}
	default:
		return fmt.Errorf("status %q is not queued, in_progress or completed", cr.Status)
	}
	cr.Annotations = slices.Clone(cr.Annotations)
	for i := range cr.Annotations {
		a := &cr.Annotations[i]
		switch a.AnnotationLevel {
		case "notice", "warning", "failure":
		default:
			return fmt.Errorf("annotation %d: level %q is not notice, warning or failure", i, a.AnnotationLevel)
		}
		if a.Path == "" || a.StartLine <= 0 || a.Message == "" {
			return fmt.Errorf("annotation %d needs a path, a start line and a message", i)
		}
		a.EndLine = max(a.EndLine, a.StartLine)
	}
	return nil
}

// isFullSHA reports whether s is a whole SHA-1 or SHA-256 in lower case.
func isFullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// GET /repos/{owner}/{repo}/commits/{ref}/check-runs: the runs on the
// commit ref names (a branch, tag or SHA), by check_name and status, the
// latest run of each name unless filter=all, paginated.
func (s *Server) list(c Call, repo Repo) {
	ref, query := c.Param("ref"), c.Request().URL.Query()
	sha, ok, err := s.host.Resolve(c.Request().Context(), repo.Dir, ref)
	switch {
	case err != nil:
		c.Fail(http.StatusInternalServerError, err.Error())
		return
	case !ok:
		c.Fail(http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
		return
	}
	filter := cmp.Or(query.Get("filter"), "latest")
	if filter != "latest" && filter != "all" {
		c.Invalid("CheckRun", "filter", "invalid", "")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var runs []*runState
	for _, cr := range s.runs {
		if cr.dir == repo.Dir && cr.HeadSHA == sha {
			runs = append(runs, cr)
		}
	}
	slices.SortFunc(runs, func(a, b *runState) int { return cmp.Compare(b.id, a.id) })
	seen := make(map[string]bool)
	runs = slices.DeleteFunc(runs, func(cr *runState) bool {
		drop := (filter == "latest" && seen[cr.Name]) ||
			(query.Get("check_name") != "" && cr.Name != query.Get("check_name")) ||
			(query.Get("status") != "" && cr.Status != query.Get("status"))
		seen[cr.Name] = true
		return drop
	})
	out := struct {
		TotalCount int       `json:"total_count"`
		CheckRuns  []wireRun `json:"check_runs"`
	}{TotalCount: len(runs), CheckRuns: []wireRun{}}
	for _, cr := range paginate(c, runs) {
		out.CheckRuns = append(out.CheckRuns, s.wireRun(repo, cr))
	}
	c.JSON(http.StatusOK, out)
}

// runLocked finds check run {id} of the call's repository, answering 404
// when there is none. Callers hold s.mu.
func (s *Server) runLocked(c Call, repo Repo) *runState {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if cr := s.runs[id]; err == nil && cr != nil && cr.dir == repo.Dir {
		return cr
	}
	c.Fail(http.StatusNotFound, "Not Found")
	return nil
}

// GET /repos/{owner}/{repo}/check-runs/{id}
func (s *Server) get(c Call, repo Repo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cr := s.runLocked(c, repo); cr != nil {
		c.JSON(http.StatusOK, s.wireRun(repo, cr))
	}
}

// GET /repos/{owner}/{repo}/check-runs/{id}/annotations, paginated.
func (s *Server) listAnnotations(c Call, repo Repo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cr := s.runLocked(c, repo)
	if cr == nil {
		return
	}
	out := []wireAnnotation{}
	for _, a := range paginate(c, cr.Annotations) {
		out = append(out, wireAnnotation{
			Path: a.Path, BlobHref: repo.HTMLURL + "/blob/" + cr.HeadSHA + "/" + a.Path,
			StartLine: a.StartLine, EndLine: a.EndLine, AnnotationLevel: a.AnnotationLevel,
			Title: wireText(a.Title), Message: a.Message, RawDetails: wireText(a.RawDetails),
		})
	}
	c.JSON(http.StatusOK, out)
}

// Runs returns the check runs of the repository in dir, oldest first.
func (s *Server) Runs(dir string) []Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Run
	for _, id := range slices.Sorted(maps.Keys(s.runs)) {
		if cr := s.runs[id]; cr.dir == dir {
			run := cr.Run
			run.Annotations = slices.Clone(run.Annotations)
			run.ID, run.Started, run.Completed = cr.id, cr.started, cr.completed
			out = append(out, run)
		}
	}
	return out
}

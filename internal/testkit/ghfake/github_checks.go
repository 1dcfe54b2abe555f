package ghfake

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CheckRun is a check run on a commit, as a CI system reports it.
type CheckRun struct {
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
	// API; "" (AddCheckRun's) is GitHub Actions. CheckRuns sets ID, and
	// Started and Completed (zero while the run is not completed).
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

type checkRunState struct {
	CheckRun
	id, suite          int64
	repo               *Repo
	started, completed time.Time
}

// AddCheckRun adds a check run to owner/repo and returns its id.
func (g *GitHub) AddCheckRun(owner, repo string, cr CheckRun) (int64, error) {
	r := g.repo(owner, repo)
	if r == nil {
		return 0, fmt.Errorf("add check run to %s/%s: no such repository", owner, repo)
	}
	if err := validCheckRun(&cr); err != nil {
		return 0, fmt.Errorf("add check run %q to %s/%s: %w", cr.Name, owner, repo, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ext.checkRuns == nil {
		g.ext.checkRuns = make(map[int64]*checkRunState)
	}
	st := &checkRunState{CheckRun: cr, id: g.nextID(), suite: g.nextID(), repo: r, started: ghNow()}
	if cr.Status == "completed" {
		st.completed = st.started
	}
	st.HTMLURL = cmp.Or(st.HTMLURL, r.HTMLURL()+"/runs/"+strconv.FormatInt(st.id, 10))
	g.ext.checkRuns[st.id] = st
	return st.id, nil
}

// validCheckRun checks a run and fills in its defaults.
func validCheckRun(cr *CheckRun) error {
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

func isFullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// resolveCommit resolves a branch, tag or SHA to a commit of the bare
// repository dir. A full SHA git does not know is taken as is, so fixtures
// may use made-up SHAs; anything else unknown is not found.
func (g *GitHub) resolveCommit(ctx context.Context, dir, ref string) (sha string, ok bool, err error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", false, nil
	}
	cmd := exec.CommandContext(ctx, g.git, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	cmd.Dir = dir
	cmd.Env = g.gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1 && stderr.Len() == 0:
		if ref = strings.ToLower(ref); isFullSHA(ref) {
			return ref, true, nil
		}
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("resolve %s in %s: %w: %s", ref, dir, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), true, nil
}

// GET /repos/{owner}/{repo}/commits/{ref}/check-runs: the runs on the
// commit ref names (a branch, tag or SHA), by check_name and status, the
// latest run of each name unless filter=all, paginated.
func (g *GitHub) listCheckRuns(c *apiCall) {
	ref := c.params["ref"]
	sha, ok, err := g.resolveCommit(c.r.Context(), c.repo.dir, ref)
	switch {
	case err != nil:
		c.fail(http.StatusInternalServerError, err.Error())
		return
	case !ok:
		c.fail(http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
		return
	}
	filter := cmp.Or(c.query("filter"), "latest")
	if filter != "latest" && filter != "all" {
		c.invalid(fieldError{Resource: "CheckRun", Field: "filter", Code: "invalid"})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var runs []*checkRunState
	for _, cr := range g.ext.checkRuns {
		if cr.repo == c.repo && cr.HeadSHA == sha {
			runs = append(runs, cr)
		}
	}
	slices.SortFunc(runs, func(a, b *checkRunState) int { return cmp.Compare(b.id, a.id) })
	seen := make(map[string]bool)
	runs = slices.DeleteFunc(runs, func(cr *checkRunState) bool {
		drop := (filter == "latest" && seen[cr.Name]) ||
			(c.query("check_name") != "" && cr.Name != c.query("check_name")) ||
			(c.query("status") != "" && cr.Status != c.query("status"))
		seen[cr.Name] = true
		return drop
	})
	out := struct {
		TotalCount int            `json:"total_count"`
		CheckRuns  []wireCheckRun `json:"check_runs"`
	}{TotalCount: len(runs), CheckRuns: []wireCheckRun{}}
	for _, cr := range paginate(c, runs) {
		out.CheckRuns = append(out.CheckRuns, c.repo.wireCheckRun(cr))
	}
	c.json(http.StatusOK, out)
}

// checkRunLocked finds check run {id} of the call's repository, answering
// 404 when there is none. Callers hold g.mu.
func (c *apiCall) checkRunLocked() *checkRunState {
	id, err := strconv.ParseInt(c.params["id"], 10, 64)
	if cr := c.g.ext.checkRuns[id]; err == nil && cr != nil && cr.repo == c.repo {
		return cr
	}
	c.fail(http.StatusNotFound, "Not Found")
	return nil
}

// GET /repos/{owner}/{repo}/check-runs/{id}
func (g *GitHub) getCheckRun(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cr := c.checkRunLocked(); cr != nil {
		c.json(http.StatusOK, c.repo.wireCheckRun(cr))
	}
}

// GET /repos/{owner}/{repo}/check-runs/{id}/annotations, paginated.
func (g *GitHub) listAnnotations(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cr := c.checkRunLocked()
	if cr == nil {
		return
	}
	out := []wireAnnotation{}
	for _, a := range paginate(c, cr.Annotations) {
		out = append(out, wireAnnotation{
			Path: a.Path, BlobHref: c.repo.HTMLURL() + "/blob/" + cr.HeadSHA + "/" + a.Path,
			StartLine: a.StartLine, EndLine: a.EndLine, AnnotationLevel: a.AnnotationLevel,
			Title: wireText(a.Title), Message: a.Message, RawDetails: wireText(a.RawDetails),
		})
	}
	c.json(http.StatusOK, out)
}

// CheckRuns returns the check runs of owner/repo, oldest first.
func (g *GitHub) CheckRuns(owner, repo string) []CheckRun {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []CheckRun
	for _, id := range slices.Sorted(maps.Keys(g.ext.checkRuns)) {
		if cr := g.ext.checkRuns[id]; cr.repo == r {
			run := cr.CheckRun
			run.Annotations = slices.Clone(run.Annotations)
			run.ID, run.Started, run.Completed = cr.id, cr.started, cr.completed
			out = append(out, run)
		}
	}
	return out
}

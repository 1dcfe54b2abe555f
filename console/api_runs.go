package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// maxReport bounds a report's size.
const maxReport = 4 << 20

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// reportFields are the fields of a session's report.json the console
// lists; the report itself is kept whole.
type reportFields struct {
	ID        string    `json:"id"`
	Repo      string    `json:"repo"`
	Status    string    `json:"status"`
	PRURL     string    `json:"pr_url"`
	Turns     int       `json:"turns"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	Usage     struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
	CostUSD  *float64 `json:"cost_usd"`
	Contract *struct {
		Verdict string `json:"verdict"`
	} `json:"contract"`
}

// POST /api/session-runs: store a session's report, by session id.
func (c *Console) postRun(w http.ResponseWriter, r *http.Request) {
	id, ok := c.caller(w, r, TokenInstallation, TokenUser)
	if !ok {
		return
	}
	raw, err := readAll(w, r, maxReport)
	if err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, "read the report: "+err.Error())
		return
	}
	var rep reportFields
	if err := json.Unmarshal(raw, &rep); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, "the report is not the session's report.json: "+err.Error())
		return
	}
	switch {
	case !sessionIDPattern.MatchString(rep.ID):
		c.refuse(w, r, http.StatusBadRequest, id.Login, fmt.Sprintf("the report's id must be the session id, got %q", rep.ID))
		return
	case validRepo(rep.Repo) != nil:
		c.refuse(w, r, http.StatusBadRequest, id.Login, "the report's "+validRepo(rep.Repo).Error())
		return
	case !c.inOrg(rep.Repo):
		c.refuse(w, r, http.StatusForbidden, id.Login, "the report is about "+rep.Repo+", which is not in "+c.cfg.Org)
		return
	}
	visible, err := c.verify.canSee(r.Context(), bearer(r), rep.Repo)
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Checking a reporter's access with GitHub failed")
		fail(w, http.StatusBadGateway, "could not check with GitHub that %s can see %s; send the report again later", id.Login, rep.Repo)
		return
	}
	if !visible {
		c.refuse(w, r, http.StatusForbidden, id.Login, fmt.Sprintf(
			"the report is about %s, which %s cannot see on GitHub: a run is reported with a token that can read its repository", rep.Repo, id.Login))
		return
	}
	run := &Run{
		SessionID: rep.ID, Repo: rep.Repo, Actor: id.Login, Owner: id.Owner, Status: rep.Status, Turns: rep.Turns,
		Tokens: rep.Usage.TotalTokens, PRURL: rep.PRURL, StartedAt: rep.StartedAt, ReceivedAt: c.cfg.Now().UTC(),
		Report: raw, Trigger: TriggerCLI, CostUSD: rep.CostUSD,
	}
	if id.Kind == TokenInstallation {
		run.Trigger = TriggerAction
	}
	if rep.Contract != nil {
		run.Verdict = rep.Contract.Verdict
	}
	if !rep.EndedAt.IsZero() && rep.EndedAt.After(rep.StartedAt) {
		run.Duration = rep.EndedAt.Sub(rep.StartedAt)
	}
	if run.StartedAt.IsZero() {
		run.StartedAt = run.ReceivedAt
	}
	created, err := c.cfg.Store.PutRun(r.Context(), run)
	if errors.Is(err, ErrNotOwner) {
		c.refuse(w, r, http.StatusForbidden, id.Login, c.notOwner(r, id, rep.ID))
		return
	}
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Storing a report failed")
		fail(w, http.StatusInternalServerError, "could not store the report; send it again later")
		return
	}
	what := "replaced"
	if created {
		what = "stored"
	}
	if err := c.audit(r.Context(), id.Login, "report", rep.ID, what+" the report of "+rep.Repo); err != nil {
		fail(w, http.StatusInternalServerError, "could not audit the report; send it again later")
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, map[string]any{"session_id": rep.ID, "created": created, "url": "/runs/" + rep.ID})
}

// notOwner is the refusal of a report that would replace run sessionID
// of another reporter: whose it is, and what to do.
func (c *Console) notOwner(r *http.Request, id Identity, sessionID string) string {
	whose := "another reporter"
	if run, err := c.cfg.Store.GetRun(r.Context(), sessionID); err == nil {
		whose = run.Actor
		if run.Trigger == TriggerAction {
			whose += " (a workflow's installation token)"
		}
	}
	return fmt.Sprintf("run %s was reported by %s, and only the identity that first reports a run may replace it; "+
		"%s's report changed nothing: send it under its own session id", sessionID, whose, id.Login)
}

// GET /api/session-runs?repo=&status=&who=: the runs, newest first, the
// bot's own included.
func (c *Console) listRuns(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.viewer(w, r); !ok {
		return
	}
	q := r.URL.Query()
	runs, err := c.runs(r, RunFilter{Repo: q.Get("repo"), Status: q.Get("status"), Actor: q.Get("who")})
	if err != nil {
		fail(w, http.StatusInternalServerError, "could not list the runs: %v", err)
		return
	}
	for _, run := range runs {
		run.Report = nil
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": runs})
}

// GET /api/session-runs/{id}: one run with its report.
func (c *Console) getRun(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.viewer(w, r); !ok {
		return
	}
	run, err := c.findRun(r, r.PathValue("id"))
	if errors.Is(err, ErrNotFound) {
		fail(w, http.StatusNotFound, "no run %q", r.PathValue("id"))
		return
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, "could not read the run: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// viewer lets in a signed-in browser or a bearer the reporters may use.
func (c *Console) viewer(w http.ResponseWriter, r *http.Request) (string, bool) {
	if ws := c.session(r); ws != nil {
		return ws.Login, true
	}
	id, ok := c.caller(w, r, TokenInstallation, TokenUser)
	return id.Login, ok
}

func (c *Console) inOrg(repo string) bool {
	owner, _, _ := strings.Cut(repo, "/")
	return strings.EqualFold(owner, c.cfg.Org)
}

func readAll(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	var raw json.RawMessage
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	return raw, nil
}

package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/state"
)

// A live run's events come in batches: at most maxEventBatch events and
// maxEventBody bytes a request.
const (
	maxEventBatch = 500
	maxEventBody  = 1 << 20
)

// eventBatch is what POST /api/session-runs/{id}/events takes: the run's
// repository (the first batch puts the run on the console), the position
// of the first event in the run's log, and the events as events.jsonl
// has them.
type eventBatch struct {
	Repo   string            `json:"repo"`
	Seq    int64             `json:"seq"`
	Events []json.RawMessage `json:"events"`
}

// liveStatuses are the states in which a run takes controls.
var liveStatuses = map[string]bool{"pending": true, "starting": true, "active": true, "idle": true}

// POST /api/session-runs/{id}/events: a live run's events as they happen,
// from the identity that reports the run (the first batch makes it the
// run's owner, as a first report does).
func (c *Console) postEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := c.caller(w, r, TokenInstallation, TokenUser)
	if !ok {
		return
	}
	sid := r.PathValue("id")
	if !sessionIDPattern.MatchString(sid) {
		c.refuse(w, r, http.StatusBadRequest, id.Login, fmt.Sprintf("the run's id must be a session id, got %q", sid))
		return
	}
	var b eventBatch
	if err := decodeBody(w, r, maxEventBody, &b); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
		return
	}
	if err := checkBatch(&b); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
		return
	}
	run, ok := c.liveRun(w, r, id, sid, b.Repo)
	if !ok {
		return
	}
	held, err := c.heldBefore(r, run)
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Reading a run's events failed")
		fail(w, http.StatusInternalServerError, "could not read the events of run %s; send them again", sid)
		return
	}
	next, err := c.cfg.Store.AppendEvents(r.Context(), sid, b.Seq, b.Events, c.cfg.Now().UTC())
	switch {
	case errors.Is(err, ErrEventGap):
		reason := fmt.Sprintf("the batch starts at event %d but the console holds %d of run %s: send from %d", b.Seq, next, sid, next)
		_ = c.audit(r.Context(), id.Login, "refuse", r.Method+" "+r.URL.Path, reason)
		writeJSON(w, http.StatusConflict, map[string]any{"error": reason, "next": next})
		return
	case errors.Is(err, ErrTooManyEvents):
		c.refuse(w, r, http.StatusRequestEntityTooLarge, id.Login, fmt.Sprintf(
			"run %s has sent the %d events the console keeps of a run: its events.jsonl keeps the rest, and its report still goes", sid, maxRunEvents))
		return
	case err != nil:
		c.cfg.Logger.Error().Err(err).Msg("Storing a run's events failed")
		fail(w, http.StatusInternalServerError, "could not store the events; send them again")
		return
	}
	if resumedIn(&b, held) {
		run = c.reopen(r, id, run)
	}
	c.heardFrom(r.Context(), sid)
	if len(run.Report) <= 2 {
		// Only what is new: a resumed run's events before its resume
		// are its last run's.
		fresh := b.Events[min(int64(len(b.Events)), max(0, held+1-b.Seq)):]
		if err := c.cfg.Store.SetLive(r.Context(), sid, liveProgress(run, fresh)); err != nil {
			c.cfg.Logger.Error().Err(err).Msg("Setting a live run's progress failed")
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"next": next})
}

// heldBefore is the position of the last event the console holds of a
// run that has sent its report, -1 with none; a live run's is not needed
// (see resumedIn).
func (c *Console) heldBefore(r *http.Request, run *Run) (int64, error) {
	if len(run.Report) <= 2 {
		return -1, nil
	}
	last, err := c.cfg.Store.LastEvents(r.Context(), run.SessionID, 1)
	if err != nil || len(last) == 0 {
		return -1, err
	}
	return last[0].Seq, nil
}

// resumedIn reports whether the batch tells, among the events past held
// (those new to the console), that the run starts again: a session
// resumed after it reported (core session resume, a top-up). A batch sent
// again tells nothing new.
func resumedIn(b *eventBatch, held int64) bool {
	for i, raw := range b.Events {
		if b.Seq+int64(i) <= held {
			continue
		}
		var e struct {
			Kind   string `json:"kind"`
			Status string `json:"status"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Kind == "state" && e.Status == "starting" {
			return true
		}
	}
	return false
}

// reopen makes a run that had reported live again, for a resumed session:
// its old report goes (the new run sends one for the whole session when it
// ends), and its page follows it again. It returns the run as it now
// stands; on a failure, as it was.
func (c *Console) reopen(r *http.Request, id Identity, run *Run) *Run {
	if len(run.Report) <= 2 {
		return run
	}
	again := *run
	again.Report, again.Status, again.Verdict, again.CostUSD, again.detail = nil, "starting", "", nil, nil
	again.Turns, again.Tokens, again.Duration = 0, 0, 0
	if _, err := c.cfg.Store.PutRun(r.Context(), &again); err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Reopening a resumed run failed")
		return run
	}
	if err := c.audit(r.Context(), id.Login, "report", run.SessionID, "the run was resumed: live again until its next report"); err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Auditing a resumed run failed")
	}
	return &again
}

// checkBatch checks a batch's fields and that each event has a kind.
func checkBatch(b *eventBatch) error {
	switch {
	case validRepo(b.Repo) != nil:
		return errors.New("the batch's " + validRepo(b.Repo).Error())
	case b.Seq < 0:
		return fmt.Errorf("seq is the position of the batch's first event, from 0, got %d", b.Seq)
	case len(b.Events) == 0:
		return errors.New("the batch has no events")
	case len(b.Events) > maxEventBatch:
		return fmt.Errorf("the batch has %d events; send at most %d a request", len(b.Events), maxEventBatch)
	}
	for i, raw := range b.Events {
		if eventKind(raw) == "" {
			return fmt.Errorf("event %d of the batch is not an event of events.jsonl (an object with a kind)", b.Seq+int64(i))
		}
	}
	return nil
}

// liveProgress is what run's events told of it, those before (as the
// store keeps them) and then these: the last state, the goal, the turns,
// and what the run spent by its last event that says (session/live's
// Event fields). The status is "" when these tell none.
func liveProgress(run *Run, events []json.RawMessage) LiveProgress {
	p := LiveProgress{Goal: run.Goal, Turns: run.Turns, Tokens: run.Tokens, CostUSD: run.CostUSD}
	for _, raw := range events {
		var e struct {
			Kind    string   `json:"kind"`
			Status  string   `json:"status"`
			Goal    string   `json:"goal"`
			Turn    int      `json:"turn"`
			Tokens  int      `json:"tokens"`
			CostUSD *float64 `json:"cost_usd"`
		}
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		switch e.Kind {
		case "state":
			p.Status = firstOf(e.Status, p.Status)
			p.Goal = firstOf(p.Goal, clip.Line(e.Goal, 200))
		case "turn":
			p.Turns = max(p.Turns, e.Turn)
		default:
			continue
		}
		p.Tokens = max(p.Tokens, e.Tokens)
		if e.CostUSD != nil && *e.CostUSD >= 0 {
			p.CostUSD = e.CostUSD
		}
	}
	return p
}

// liveRun finds the run events are sent for, or puts it on the console
// when this is its first batch; it refuses (audited) a sender that is not
// the run's owner, and a repository the sender cannot see.
func (c *Console) liveRun(w http.ResponseWriter, r *http.Request, id Identity, sid, repo string) (*Run, bool) {
	run, err := c.cfg.Store.GetRun(r.Context(), sid)
	switch {
	case err == nil:
		if !owns(run, id) {
			c.refuse(w, r, http.StatusForbidden, id.Login, fmt.Sprintf(
				"run %s is reported by %s: only the identity that reports a run may send its events", sid, run.Actor))
			return nil, false
		}
		return run, true
	case !errors.Is(err, ErrNotFound):
		c.cfg.Logger.Error().Err(err).Msg("Reading a run failed")
		fail(w, http.StatusInternalServerError, "could not read run %s; send the events again", sid)
		return nil, false
	case !c.inOrg(repo):
		c.refuse(w, r, http.StatusForbidden, id.Login, "the run is on "+repo+", which is not in "+c.cfg.Org)
		return nil, false
	}
	visible, err := c.verify.canSee(r.Context(), bearer(r), repo)
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Checking a reporter's access with GitHub failed")
		fail(w, http.StatusBadGateway, "could not check with GitHub that %s can see %s; send the events again later", id.Login, repo)
		return nil, false
	}
	if !visible {
		c.refuse(w, r, http.StatusForbidden, id.Login, fmt.Sprintf(
			"the run is on %s, which %s cannot see on GitHub: a run's events are sent with a token that can read its repository", repo, id.Login))
		return nil, false
	}
	now := c.cfg.Now().UTC()
	run = &Run{SessionID: sid, Repo: repo, Actor: id.Login, Owner: id.Owner, Status: "starting", StartedAt: now, ReceivedAt: now, Trigger: TriggerCLI}
	if id.Kind == TokenInstallation {
		run.Trigger = TriggerAction
	}
	if _, err := c.cfg.Store.PutRun(r.Context(), run); err != nil {
		if errors.Is(err, ErrNotOwner) {
			c.refuse(w, r, http.StatusForbidden, id.Login, c.notOwner(r, id, sid))
			return nil, false
		}
		c.cfg.Logger.Error().Err(err).Msg("Storing a live run failed")
		fail(w, http.StatusInternalServerError, "could not store run %s; send the events again", sid)
		return nil, false
	}
	if err := c.audit(r.Context(), id.Login, "report", sid, "the live run on "+repo+" began sending its events"); err != nil {
		fail(w, http.StatusInternalServerError, "could not audit the run; send the events again")
		return nil, false
	}
	return run, true
}

// owns reports whether id is the run's owner (see Store.PutRun).
func owns(run *Run, id Identity) bool {
	return run.Owner == id.Owner || run.Owner == "" && gh.SameLogin(run.Actor, id.Login)
}

// GET /api/session-runs/{id}/events?after=N: the run's events after
// position N, its status and its controls, for the run page (which asks
// again every few seconds while the run lives).
func (c *Console) getEvents(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.viewer(w, r); !ok {
		return
	}
	sid := r.PathValue("id")
	after := int64(-1)
	if s := r.URL.Query().Get("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < -1 {
			fail(w, http.StatusBadRequest, "after must be an event's position (a number from -1), got %q", s)
			return
		}
		after = n
	}
	c.sweepLost(r.Context())
	run, err := c.cfg.Store.GetRun(r.Context(), sid)
	if errors.Is(err, ErrNotFound) {
		fail(w, http.StatusNotFound, "no run %q has sent events here", sid)
		return
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, "could not read the run: %v", err)
		return
	}
	events, err := c.cfg.Store.Events(r.Context(), sid, after, 500)
	if err != nil {
		fail(w, http.StatusInternalServerError, "could not read the run's events: %v", err)
		return
	}
	controls, err := c.cfg.Store.Controls(r.Context(), sid)
	if err != nil {
		fail(w, http.StatusInternalServerError, "could not read the run's controls: %v", err)
		return
	}
	if events == nil {
		events = []*RunEvent{}
	}
	if controls == nil {
		controls = []*RunControl{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": run.Status, "live": isLive(run), "events": events, "controls": controls,
		"progress": progressOf(run)})
}

// isLive reports whether run is live on the console: it sends its
// events, has not sent its report, and has not ended.
func isLive(run *Run) bool {
	return len(run.Report) <= 2 && liveStatuses[run.Status]
}

// ownRun finds run {id} for a request from its owner; otherwise it answers
// (a refusal audited) and returns nil.
func (c *Console) ownRun(w http.ResponseWriter, r *http.Request) (*Run, Identity) {
	id, ok := c.caller(w, r, TokenInstallation, TokenUser)
	if !ok {
		return nil, id
	}
	sid := r.PathValue("id")
	run, err := c.cfg.Store.GetRun(r.Context(), sid)
	switch {
	case errors.Is(err, ErrNotFound):
		c.refuse(w, r, http.StatusNotFound, id.Login, fmt.Sprintf("no run %q has sent events here: send its events first", sid))
		return nil, id
	case err != nil:
		c.cfg.Logger.Error().Err(err).Msg("Reading a run failed")
		fail(w, http.StatusInternalServerError, "could not read run %s; ask again", sid)
		return nil, id
	case !owns(run, id):
		c.refuse(w, r, http.StatusForbidden, id.Login, fmt.Sprintf(
			"run %s is reported by %s: only the run itself takes what its page sends it", sid, run.Actor))
		return nil, id
	}
	c.heardFrom(r.Context(), sid)
	return run, id
}

// GET /api/session-runs/{id}/controls?wait=25s: the run, as its owner,
// takes the messages, interrupts and stops people sent from its page,
// waiting up to wait for one; 204 when none came.
func (c *Console) takeControls(w http.ResponseWriter, r *http.Request) {
	run, id := c.ownRun(w, r)
	if run == nil {
		return
	}
	wait, ok := c.waitParam(w, r, id.Login)
	if !ok {
		return
	}
	c.longPoll(w, r, wait, runKey(run.SessionID), func(ctx context.Context) bool {
		cs, err := c.cfg.Store.TakeControls(ctx, run.SessionID, c.cfg.Now().UTC())
		if err != nil {
			c.cfg.Logger.Error().Err(err).Msg("Taking a run's controls failed")
			fail(w, http.StatusInternalServerError, "could not read the run's controls; ask again")
			return true
		}
		if len(cs) == 0 {
			return false
		}
		writeJSON(w, http.StatusOK, map[string]any{"controls": cs})
		return true
	})
}

// runKey is the notifier's key of a run's controls (logins have no "/").
func runKey(sessionID string) string { return "run/" + sessionID }

// POST /api/session-runs/{id}/controls/{cid} {"ack", "rejected"}: the run
// says what became of a control; its page shows it.
func (c *Console) ackControl(w http.ResponseWriter, r *http.Request) {
	run, id := c.ownRun(w, r)
	if run == nil {
		return
	}
	cid, err := strconv.ParseInt(r.PathValue("cid"), 10, 64)
	if err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, fmt.Sprintf("the control id must be a number, got %q", r.PathValue("cid")))
		return
	}
	var req struct {
		Ack      string `json:"ack"`
		Rejected bool   `json:"rejected"`
	}
	if err := decodeBody(w, r, 8192, &req); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
		return
	}
	if strings.TrimSpace(req.Ack) == "" {
		c.refuse(w, r, http.StatusBadRequest, id.Login, "ack is empty: say what became of the control")
		return
	}
	ctl, err := c.cfg.Store.AckControl(r.Context(), run.SessionID, cid, clip.Line(req.Ack, 500), req.Rejected, c.cfg.Now().UTC())
	switch {
	case errors.Is(err, ErrNotFound):
		c.refuse(w, r, http.StatusNotFound, id.Login, fmt.Sprintf("run %s has no control %d", run.SessionID, cid))
		return
	case errors.Is(err, ErrFinished):
		c.refuse(w, r, http.StatusConflict, id.Login, fmt.Sprintf("control %d of run %s is %s: it is acknowledged once, after it was taken", cid, run.SessionID, ctl.State))
		return
	case err != nil:
		c.cfg.Logger.Error().Err(err).Msg("Acknowledging a control failed")
		fail(w, http.StatusInternalServerError, "could not record the acknowledgement; send it again")
		return
	}
	writeJSON(w, http.StatusOK, ctl)
}

// eventLine is an event as the run page shows it, one line (or, for a
// command's output, the lines as they came): the console's own reading of
// session/live's Event fields, like core session watch prints them.
func eventLine(raw json.RawMessage) string {
	var e struct {
		Time        time.Time `json:"time"`
		Kind        string    `json:"kind"`
		Status      string    `json:"status"`
		FailureKind string    `json:"failure_kind"`
		Turn        int       `json:"turn"`
		Tool        string    `json:"tool"`
		Target      string    `json:"target"`
		Check       string    `json:"check"`
		Verdict     string    `json:"verdict"`
		From        string    `json:"from"`
		Text        string    `json:"text"`
		Exit        *int      `json:"exit"`
		Backend     string    `json:"backend"`
		Limit       string    `json:"limit"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return ""
	}
	at := e.Time.UTC().Format("15:04:05")
	switch e.Kind {
	case "state":
		line := at + "  " + state.Status(e.Status).Word()
		if e.FailureKind != "" {
			line += " (" + e.FailureKind + ")"
		}
		if e.Text != "" {
			line += ": " + e.Text
		}
		return line
	case "turn":
		return strings.TrimSpace(fmt.Sprintf("%s  turn %d  %s %s", at, e.Turn, e.Tool, clip.Line(e.Target, 120)))
	case "output":
		return strings.TrimRight(e.Text, "\n")
	case "check":
		return fmt.Sprintf("%s  check %s: %s", at, e.Check, e.Verdict)
	case "message":
		return fmt.Sprintf("%s  message from %s: %s", at, e.From, e.Text)
	case "interrupt":
		return fmt.Sprintf("%s  interrupted by %s", at, e.From)
	case "request", "tool":
		return "" // the run's steps the turn's line tells: not shown
	case "command":
		return stepLine(at+"  command "+clip.Line(e.Target, 120), exitWord(e.Exit, e.Backend, e.Limit), e.Text)
	case "deps":
		return stepLine(at+"  dependencies", e.Verdict, e.Text)
	case "land":
		if e.Target != "" {
			return at + "  landed: " + clip.Line(e.Target, 200)
		}
		return stepLine(at+"  not landed", "", e.Text)
	}
	return strings.TrimSpace(fmt.Sprintf("%s  %s %s", at, e.Kind, e.Text))
}

// stepLine is a step's line: what, then how it ended and why, each
// when there is one, cut to a line.
func stepLine(what, how, why string) string {
	for _, s := range []string{how, clip.Line(why, 160)} {
		if s != "" {
			what += ": " + s
		}
	}
	return what
}

// exitWord is how a command ended, for its line.
func exitWord(exit *int, backend, limit string) string {
	word := "no exit status"
	if exit != nil {
		word = fmt.Sprintf("exit %d", *exit)
	}
	if backend != "" {
		word += " (" + backend + ")"
	}
	if limit != "" {
		word += ", stopped at its " + limit + " limit"
	}
	return word
}

func eventKind(raw json.RawMessage) string {
	var e struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.Kind
}

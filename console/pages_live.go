package console

import (
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
)

// maxMessage bounds a message to a live run; pageEvents is how many of
// its last events the run page opens with.
const (
	maxMessage = 16 << 10
	pageEvents = 1000
)

// POST /runs/{id}/control (action=message|interrupt|stop, text, csrf):
// a person at the run's page sends the run a message, interrupts its turn
// or stops it. Only the person who started the run may message or
// interrupt it; a stop is also a repository admin's. Every refusal is
// audited. The run takes the control from the console (GET
// /api/session-runs/{id}/controls) and acknowledges it; the page shows
// both. A browser is sent back to the run's page.
func (c *Console) postControl(w http.ResponseWriter, r *http.Request) {
	ws := c.form(w, r)
	if ws == nil {
		return
	}
	refuse := c.refuserFor(r)
	sid := r.PathValue("id")
	kind := strings.TrimSpace(r.PostFormValue("action"))
	text := strings.TrimSpace(r.PostFormValue("text"))
	switch {
	case kind != ControlMessage && kind != ControlInterrupt && kind != ControlStop:
		refuse(w, r, http.StatusBadRequest, ws.Login, fmt.Sprintf("action must be message, interrupt or stop, got %q", kind))
		return
	case kind == ControlMessage && text == "":
		refuse(w, r, http.StatusBadRequest, ws.Login, "the message is empty: say what the run should do")
		return
	case len(text) > maxMessage:
		refuse(w, r, http.StatusBadRequest, ws.Login, fmt.Sprintf("the message is longer than %d bytes", maxMessage))
		return
	}
	c.sweepLost(r.Context())
	run, err := c.cfg.Store.GetRun(r.Context(), sid)
	switch {
	case errors.Is(err, ErrNotFound):
		refuse(w, r, http.StatusNotFound, ws.Login, fmt.Sprintf(
			"run %s is not live on this console: only a run that sends its events here (one core session serve runs, or a core session start that reports here) takes messages from its page", sid))
		return
	case err != nil:
		c.logFailure(r, err)
		refuse(w, r, http.StatusInternalServerError, ws.Login, "the run could not be read just now; send it again in a moment")
		return
	case run.Trigger != TriggerCLI:
		refuse(w, r, http.StatusConflict, ws.Login, fmt.Sprintf(
			"run %s is a workflow's: send it /core %s as a comment on its issue or pull request", sid, commentFor(kind)))
		return
	case run.Status == StatusLost:
		refuse(w, r, http.StatusConflict, ws.Login, fmt.Sprintf("run %s is lost: nothing was heard from it since %s, and it takes nothing until it is heard from again (%s)",
			sid, cmp.Or(when(run.SeenAt), "it began"), lostWhy))
		return
	case !isLive(run):
		refuse(w, r, http.StatusConflict, ws.Login, fmt.Sprintf("run %s has ended (%s): it takes nothing more", sid, run.Status))
		return
	}
	if reason := c.mayControl(r, run, ws, kind); reason != "" {
		refuse(w, r, http.StatusForbidden, ws.Login, reason)
		return
	}
	ctl := &RunControl{SessionID: sid, Kind: kind, Text: text, From: ws.Login, CreatedAt: c.cfg.Now().UTC()}
	if err := c.cfg.Store.AddControl(r.Context(), ctl); err != nil {
		c.logFailure(r, err)
		refuse(w, r, http.StatusInternalServerError, ws.Login, "the "+kind+" could not be queued just now; send it again")
		return
	}
	if err := c.audit(r.Context(), ws.Login, kind, sid, "sent from the run's page: "+clip.Line(firstOf(text, kind), 200)); err != nil {
		refuse(w, r, http.StatusInternalServerError, ws.Login, "the "+kind+" is queued but could not be audited")
		return
	}
	c.wake.notify(runKey(sid))
	if !wantsPage(r) {
		writeJSON(w, http.StatusCreated, ctl)
		return
	}
	http.Redirect(w, r, "/runs/"+sid+"#controls", http.StatusSeeOther)
}

// topUpInstruction is what a top-up says to the resumed run when the
// form's box is left empty.
const topUpInstruction = "Carry on where you stopped."

// POST /runs/{id}/topup (budget_usd, instruction, csrf): the person who
// started a run on their own machine (core session start or serve) whose
// budget ran out queues, for their machines, an instruction that resumes
// the session with that much more to spend. core session serve runs it as
// core session resume ID "instruction" --budget-usd N. Every refusal is
// audited; a browser is sent to the queue, where the instruction shows.
func (c *Console) postTopUp(w http.ResponseWriter, r *http.Request) {
	ws := c.form(w, r)
	if ws == nil {
		return
	}
	refuse := c.refuserFor(r)
	sid := r.PathValue("id")
	usd, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(r.PostFormValue("budget_usd")), "$"), 64)
	if err != nil || !(usd > 0) {
		refuse(w, r, http.StatusBadRequest, ws.Login, fmt.Sprintf("the top-up must be an amount of dollars above 0, such as 2, got %q", r.PostFormValue("budget_usd")))
		return
	}
	run, err := c.findRun(r, sid)
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && run == nil:
		refuse(w, r, http.StatusNotFound, ws.Login, fmt.Sprintf("there is no run %s here to top up", sid))
		return
	case err != nil:
		c.logFailure(r, err)
		refuse(w, r, http.StatusInternalServerError, ws.Login, "the run could not be read just now; send the top-up again in a moment")
		return
	case run.Trigger != TriggerCLI:
		refuse(w, r, http.StatusConflict, ws.Login, fmt.Sprintf(
			"run %s ran %s, not on a person's machine: ask again (/core fix) with a larger budget_usd", sid, whereRan(run.Trigger)))
		return
	case EndingOf(run).Key != EndingExhausted:
		refuse(w, r, http.StatusConflict, ws.Login, fmt.Sprintf("run %s ended %s, not with its budget exhausted: only that is topped up", sid, EndingOf(run).Word))
		return
	case !gh.SameAccount(accountOf(ws.Login, ws.Owner), accountOf(run.Actor, run.Owner)):
		refuse(w, r, http.StatusForbidden, ws.Login, fmt.Sprintf(
			"only %s, who started run %s, may top it up: it resumes on their machine", run.Actor, sid))
		return
	}
	req := commandRequest{Repo: run.Repo, Instruction: cmp.Or(strings.TrimSpace(r.PostFormValue("instruction")), topUpInstruction),
		Resume: sid, Limits: Limits{BudgetUSD: usd}}
	if err := c.checkCommand(&req); err != nil {
		refuse(w, r, http.StatusBadRequest, ws.Login, err.Error())
		return
	}
	cmd, err := c.enqueue(r.Context(), ws.Login, req)
	if err != nil {
		c.logFailure(r, err)
		refuse(w, r, http.StatusInternalServerError, ws.Login, "the top-up could not be queued just now; send it again")
		return
	}
	if !wantsPage(r) {
		writeJSON(w, http.StatusCreated, cmd)
		return
	}
	http.Redirect(w, r, "/queue", http.StatusSeeOther)
}

// mayControl is why the person signed in as ws may not send kind to run,
// or "" when they may: the run's starter may do anything, a repository
// admin only stop it (gh.MayAct). The starter is known by account where
// both sides name one (gh.SameAccount).
func (c *Console) mayControl(r *http.Request, run *Run, ws *WebSession, kind string) string {
	login := ws.Login
	starter, act := gh.SameAccount(accountOf(login, ws.Owner), accountOf(run.Actor, run.Owner)), controlAct(kind)
	if gh.MayAct("", starter, act) {
		return ""
	}
	if !gh.PermissionDecides(starter, act) {
		return fmt.Sprintf("only %s, who started run %s, may %s it", run.Actor, run.SessionID, verbOf(kind))
	}
	perm, err := c.cfg.App.Permission(r.Context(), run.Repo, login)
	if err != nil {
		c.logFailure(r, err)
		return fmt.Sprintf("only %s, who started run %s, or an admin of %s may stop it, and GitHub could not say whether %s is one just now: try again",
			run.Actor, run.SessionID, run.Repo, login)
	}
	if !gh.MayAct(perm, starter, act) {
		return fmt.Sprintf("only %s, who started run %s, or an admin of %s may stop it; %s has %s permission", run.Actor, run.SessionID, run.Repo, login, perm)
	}
	return ""
}

// accountOf is the GitHub account of login whose stable identity is owner
// (Identity.Owner): a user's id from "user:ID"; no id for anything else
// (an installation, or a record kept before owners were).
func accountOf(login, owner string) gh.Account {
	a := gh.Account{Login: login}
	if s, ok := strings.CutPrefix(owner, "user:"); ok {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 {
			a.ID = id
		}
	}
	return a
}

// controlAct is the act a control of kind asks (kind is checked before).
func controlAct(kind string) gh.Act {
	switch kind {
	case ControlMessage:
		return gh.ActMessage
	case ControlInterrupt:
		return gh.ActInterrupt
	case ControlStop:
		return gh.ActStop
	}
	return ""
}

func verbOf(kind string) string {
	if kind == ControlMessage {
		return "send a message to"
	}
	return kind
}

func commentFor(kind string) string {
	if kind == ControlMessage {
		return "<your message>"
	}
	return kind
}

// liveView is what the run page shows of a run that sent its events: the
// events so far, which the page's script follows while the run lives,
// and the controls people sent it with the run's acknowledgements.
type liveView struct {
	Live     bool // the run takes controls (and the page follows it)
	Starter  string
	Events   []*RunEvent
	Last     int64 // the last event's position, -1 with none
	Earlier  int64 // how many events came before those shown
	Controls []*RunControl
}

// livePage fills the page's live view when run sent events to this
// console (a run only the bot knows, or one that sent only its report,
// has none).
func (c *Console) livePage(r *http.Request, p *page, run *Run) error {
	events, err := c.cfg.Store.LastEvents(r.Context(), run.SessionID, pageEvents)
	if err != nil {
		return err
	}
	controls, err := c.cfg.Store.Controls(r.Context(), run.SessionID)
	if err != nil {
		return err
	}
	live := run.Trigger == TriggerCLI && isLive(run)
	if len(events) == 0 && len(controls) == 0 && !live {
		return nil
	}
	v := &liveView{Live: live, Starter: run.Actor, Events: events, Last: -1, Controls: controls}
	if n := len(events); n > 0 {
		v.Last, v.Earlier = events[n-1].Seq, events[0].Seq
	}
	p.Live = v
	if live {
		p.Nonce = rand.Text()
	}
	return nil
}

// note says where a control stands, for its sender.
func (c *RunControl) note() string {
	switch c.State {
	case ControlQueued:
		return "sent: waiting for the run to take it"
	case ControlDelivered:
		return "taken by the run"
	case ControlRejected:
		return "the run could not take it: " + c.Ack
	}
	return c.Ack
}

// whereRan says where a run that no person's machine ran did: the bot's
// own runs and the Action's.
func whereRan(trigger string) string {
	if trigger == TriggerBot {
		return "for core's bot"
	}
	return "in a workflow"
}

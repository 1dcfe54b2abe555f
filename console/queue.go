package console

import (
	"net/http"
	"strconv"
	"strings"
)

// GET /queue
func (c *Console) queuePage(w http.ResponseWriter, r *http.Request) {
	p := c.signedIn(w, r, "Queue")
	if p == nil {
		return
	}
	cmds, err := c.cfg.Store.Commands(r.Context(), p.Login, 200)
	if err != nil {
		c.failPage(w, r, p, "queue", "Your queue could not be read just now; reload the page in a moment.", err)
		return
	}
	p.Commands = cmds
	p.RunEndings = c.commandEndings(r, cmds)
	c.render(w, http.StatusOK, "queue", p)
}

// commandEndings are how the runs the commands' results name ended, by
// session id, for those the console holds; a run it cannot read is left
// out (the result's own status stands).
func (c *Console) commandEndings(r *http.Request, cmds []*Command) map[string]*Ending {
	out := map[string]*Ending{}
	for _, cmd := range cmds {
		if cmd.Result == nil || cmd.Result.SessionID == "" {
			continue
		}
		if run, err := c.cfg.Store.GetRun(r.Context(), cmd.Result.SessionID); err == nil {
			e := EndingOf(run)
			out[run.SessionID] = &e
		}
	}
	return out
}

// GET /api/session-queue: your commands, for a signed-in browser.
func (c *Console) getQueue(w http.ResponseWriter, r *http.Request) {
	ws := c.session(r)
	if ws == nil {
		c.refuse(w, r, http.StatusUnauthorized, "", "not signed in: sign in at /login")
		return
	}
	cmds, err := c.cfg.Store.Commands(r.Context(), ws.Login, 200)
	if err != nil {
		fail(w, http.StatusInternalServerError, "could not list your queue: %v", err)
		return
	}
	if cmds == nil {
		cmds = []*Command{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"commands": cmds})
}

// POST /api/session-queue: queue an instruction from the page's form
// (repo, instruction, max_turns, timeout, csrf). A browser is sent back to
// /queue; a caller that accepts JSON gets the command.
func (c *Console) postQueue(w http.ResponseWriter, r *http.Request) {
	ws := c.form(w, r)
	if ws == nil {
		return
	}
	req := commandRequest{Repo: r.PostFormValue("repo"), Instruction: r.PostFormValue("instruction"),
		Limits: Limits{Timeout: strings.TrimSpace(r.PostFormValue("timeout"))}}
	if s := strings.TrimSpace(r.PostFormValue("max_turns")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			c.refusePage(w, r, http.StatusBadRequest, ws.Login, "max turns must be a number, got "+strconv.Quote(s))
			return
		}
		req.Limits.MaxTurns = n
	}
	if err := c.checkCommand(&req); err != nil {
		c.refusePage(w, r, http.StatusBadRequest, ws.Login, err.Error())
		return
	}
	cmd, err := c.enqueue(r.Context(), ws.Login, req)
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Queueing an instruction failed")
		c.refusePage(w, r, http.StatusInternalServerError, ws.Login, "could not queue the instruction; try again")
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		writeJSON(w, http.StatusCreated, cmd)
		return
	}
	http.Redirect(w, r, "/queue", http.StatusSeeOther)
}

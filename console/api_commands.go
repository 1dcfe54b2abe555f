package console

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxInstruction bounds an instruction's text.
const maxInstruction = 64 << 10

// commandRequest is what POST /api/session-commands takes. There is no
// field naming whose machine runs it: that is the caller's own.
type commandRequest struct {
	Repo        string `json:"repo"`
	Instruction string `json:"instruction"`
	Resume      string `json:"resume"`
	Limits      Limits `json:"limits"`
}

// maxBudgetUSD bounds what one instruction may be given to spend.
const maxBudgetUSD = 1000

func (c *Console) checkCommand(req *commandRequest) error {
	req.Repo, req.Instruction = strings.TrimSpace(req.Repo), strings.TrimSpace(req.Instruction)
	switch {
	case validRepo(req.Repo) != nil:
		return validRepo(req.Repo)
	case !c.inOrg(req.Repo):
		return fmt.Errorf("repo %s is not in %s: this console queues instructions for %s's repositories", req.Repo, c.cfg.Org, c.cfg.Org)
	case req.Instruction == "":
		return errors.New("the instruction is empty: say what to do")
	case len(req.Instruction) > maxInstruction:
		return fmt.Errorf("the instruction is longer than %d bytes", maxInstruction)
	case req.Limits.MaxTurns < 0 || req.Limits.MaxTurns > 200:
		return fmt.Errorf("limits.max_turns must be between 1 and 200, got %d", req.Limits.MaxTurns)
	case !(req.Limits.BudgetUSD >= 0 && req.Limits.BudgetUSD <= maxBudgetUSD):
		return fmt.Errorf("limits.budget_usd must be an amount of dollars from 0 to %d, got %v", maxBudgetUSD, req.Limits.BudgetUSD)
	case req.Resume != "" && !sessionIDPattern.MatchString(req.Resume):
		return fmt.Errorf("resume must be a session id, got %q", req.Resume)
	}
	if t := req.Limits.Timeout; t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 || d > 24*time.Hour {
			return fmt.Errorf("limits.timeout must be a duration such as 45m, at most 24h, got %q", t)
		}
	}
	return nil
}

// enqueue queues a checked instruction for login, audits it and wakes
// login's pollers.
func (c *Console) enqueue(ctx context.Context, login string, req commandRequest) (*Command, error) {
	cmd := &Command{Target: login, Repo: req.Repo, Instruction: req.Instruction, Resume: req.Resume, Limits: req.Limits, CreatedAt: c.cfg.Now().UTC()}
	if err := c.cfg.Store.Enqueue(ctx, cmd); err != nil {
		return nil, err
	}
	if err := c.audit(ctx, login, "enqueue", strconv.FormatInt(cmd.ID, 10), "queued for "+login+" on "+req.Repo); err != nil {
		return nil, err
	}
	c.wake.notify(login)
	return cmd, nil
}

// POST /api/session-commands: queue an instruction for yourself.
func (c *Console) postCommand(w http.ResponseWriter, r *http.Request) {
	id, ok := c.caller(w, r, TokenUser)
	if !ok {
		return
	}
	var req commandRequest
	if err := decodeBody(w, r, maxInstruction+4096, &req); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
		return
	}
	if err := c.checkCommand(&req); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
		return
	}
	cmd, err := c.enqueue(r.Context(), id.Login, req)
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Queueing an instruction failed")
		fail(w, http.StatusInternalServerError, "could not queue the instruction; try again")
		return
	}
	writeJSON(w, http.StatusCreated, cmd)
}

// GET /api/session-commands?wait=25s: claim your next instruction,
// waiting up to wait for one; 204 when none came.
func (c *Console) claimCommand(w http.ResponseWriter, r *http.Request) {
	id, ok := c.caller(w, r, TokenUser)
	if !ok {
		return
	}
	wait, ok := c.waitParam(w, r, id.Login)
	if !ok {
		return
	}
	c.longPoll(w, r, wait, id.Login, func(ctx context.Context) bool {
		cmd, err := c.cfg.Store.Claim(ctx, id.Login, rand.Text(), c.cfg.Now().UTC(), c.cfg.Lease)
		if err != nil {
			c.cfg.Logger.Error().Err(err).Msg("Claiming an instruction failed")
			fail(w, http.StatusInternalServerError, "could not claim an instruction; poll again")
			return true
		}
		if cmd == nil {
			return false
		}
		reason := fmt.Sprintf("claimed (attempt %d) until %s", cmd.Attempts, cmd.LeaseUntil.Format(time.RFC3339))
		if err := c.audit(ctx, id.Login, "claim", strconv.FormatInt(cmd.ID, 10), reason); err != nil {
			fail(w, http.StatusInternalServerError, "could not audit the claim; poll again")
			return true
		}
		writeJSON(w, http.StatusOK, cmd)
		return true
	})
}

// waitParam reads a long poll's ?wait= (0 when absent), refusing one
// past MaxWait.
func (c *Console) waitParam(w http.ResponseWriter, r *http.Request, login string) (time.Duration, bool) {
	s := r.URL.Query().Get("wait")
	if s == "" {
		return 0, true
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > c.cfg.MaxWait {
		c.refuse(w, r, http.StatusBadRequest, login, fmt.Sprintf("wait must be a duration from 0s to %s, got %q", c.cfg.MaxWait, s))
		return 0, false
	}
	return d, true
}

// longPoll calls look until it answers (it reports true once it has
// written the response), waking when key is notified on this replica and
// every Recheck for what another replica did; after wait it answers 204.
func (c *Console) longPoll(w http.ResponseWriter, r *http.Request, wait time.Duration, key string, look func(ctx context.Context) bool) {
	// The server's write timeout is shorter than a long poll: extend it for
	// this answer (servers without deadlines say so, which is fine too).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(wait + 30*time.Second))
	ctx := r.Context()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	recheck := time.NewTicker(c.cfg.Recheck)
	defer recheck.Stop()
	for {
		woken := c.wake.wait(key) // before looking, so a notify in between is not missed
		if look(ctx) {
			return
		}
		select {
		case <-woken:
		case <-recheck.C:
		case <-deadline.C:
			w.WriteHeader(http.StatusNoContent)
			return
		case <-c.closing:
			// Shutting down: come back in a second (to another replica).
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusNoContent)
			return
		case <-ctx.Done():
			return
		}
	}
}

// commandID parses the {id} of a command path, refusing a bad one.
func (c *Console) commandID(w http.ResponseWriter, r *http.Request, login string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		c.refuse(w, r, http.StatusBadRequest, login, fmt.Sprintf("the command id must be a number, got %q", r.PathValue("id")))
		return 0, false
	}
	return n, true
}

// claimError answers a store's refusal of a claim's request, audited.
func (c *Console) claimError(w http.ResponseWriter, r *http.Request, login string, n int64, claim string, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		c.refuse(w, r, http.StatusNotFound, login, fmt.Sprintf("no command %d of yours", n))
	case errors.Is(err, ErrFinished):
		c.refuse(w, r, http.StatusConflict, login, fmt.Sprintf("command %d already has its result", n))
	case errors.Is(err, ErrNotClaimer):
		c.refuse(w, r, http.StatusConflict, login, fmt.Sprintf("command %d is not held by claim %q (its lease ran out, or another poller holds it)", n, claim))
	default:
		c.cfg.Logger.Error().Err(err).Int64(logKeyCommand, n).Msg("Updating a claimed command failed")
		fail(w, http.StatusInternalServerError, "could not update command %d; send it again", n)
	}
}

// POST /api/session-commands/{id}/lease {"claim"}: the claimer, still at
// work, keeps the command for another lease.
func (c *Console) renewLease(w http.ResponseWriter, r *http.Request) {
	id, ok := c.caller(w, r, TokenUser)
	if !ok {
		return
	}
	n, ok := c.commandID(w, r, id.Login)
	if !ok {
		return
	}
	var req struct {
		Claim string `json:"claim"`
	}
	if err := decodeBody(w, r, 4096, &req); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
		return
	}
	cmd, err := c.cfg.Store.Renew(r.Context(), n, id.Login, req.Claim, c.cfg.Now().UTC().Add(c.cfg.Lease))
	if err != nil {
		c.claimError(w, r, id.Login, n, req.Claim, err)
		return
	}
	writeJSON(w, http.StatusOK, cmd)
}

// POST /api/session-commands/{id}/result: the claimer's outcome, once.
func (c *Console) postResult(w http.ResponseWriter, r *http.Request) {
	id, ok := c.caller(w, r, TokenUser)
	if !ok {
		return
	}
	n, ok := c.commandID(w, r, id.Login)
	if !ok {
		return
	}
	var res Result
	if err := decodeBody(w, r, maxReport, &res); err != nil {
		c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
		return
	}
	switch res.Status {
	case "succeeded", CommandFailed, CommandRefused, CommandReleased:
	default:
		c.refuse(w, r, http.StatusBadRequest, id.Login, fmt.Sprintf("status must be succeeded, failed, refused or released, got %q", res.Status))
		return
	}
	anchor := res.Audit
	if anchor != nil {
		if err := validAnchor(anchor); err != nil {
			c.refuse(w, r, http.StatusBadRequest, id.Login, err.Error())
			return
		}
		res.Audit = nil // kept apart, not in the result
	}
	cmd, err := c.cfg.Store.Finish(r.Context(), n, id.Login, &res, c.cfg.Now().UTC())
	if err != nil {
		c.claimError(w, r, id.Login, n, res.Claim, err)
		return
	}
	if anchor != nil {
		c.anchor(r, id.Login, n, anchor)
	}
	reason := res.Status
	if res.Error != "" {
		reason += ": " + res.Error
	}
	if err := c.audit(r.Context(), id.Login, "result", strconv.FormatInt(n, 10), reason); err != nil {
		fail(w, http.StatusInternalServerError, "the result is recorded but could not be audited")
		return
	}
	if cmd.State == CommandQueued {
		c.wake.notify(id.Login)
	}
	writeJSON(w, http.StatusOK, cmd)
}

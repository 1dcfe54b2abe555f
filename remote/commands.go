package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Limits are an instruction's own limits, as the console queued them.
type Limits struct {
	MaxTurns int    `json:"max_turns,omitempty"`
	Timeout  string `json:"timeout,omitempty"`
	// BudgetUSD is the most the run may spend, in dollars; a top-up when
	// the command resumes a session.
	BudgetUSD float64 `json:"budget_usd,omitempty"`
}

// Command is a queued instruction, as the console answers it.
type Command struct {
	ID          int64  `json:"id"`
	Target      string `json:"target"`
	Repo        string `json:"repo"`
	Instruction string `json:"instruction"`
	// Resume names a session of this machine to continue with the
	// instruction (core session resume) instead of starting one.
	Resume string `json:"resume,omitempty"`
	Limits Limits `json:"limits"`
	State  string `json:"state"`
	// Claim is the claim's id: the result must name it.
	Claim      string    `json:"claim,omitempty"`
	LeaseUntil time.Time `json:"lease_until,omitzero"`
	Attempts   int       `json:"attempts"`
}

// Result statuses the console takes.
const (
	Succeeded = "succeeded"
	Failed    = "failed"
	Declined  = "refused"
	Released  = "released"
)

// Result is what a claimed instruction came to.
type Result struct {
	Claim     string          `json:"claim"`
	Status    string          `json:"status"`
	Summary   string          `json:"summary,omitempty"`
	Contract  json.RawMessage `json:"contract,omitempty"`
	PRURL     string          `json:"pr_url,omitempty"`
	Error     string          `json:"error,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	// Audit is the audit trail's position once the result is in it, for
	// the console to keep (see AnchorPoint).
	Audit *AnchorPoint `json:"audit,omitempty"`
}

// Order is an instruction to queue: on Repo, or continuing the session
// Resume of the machine that runs it (Limits.BudgetUSD then a top-up).
type Order struct {
	Repo        string `json:"repo"`
	Instruction string `json:"instruction"`
	Resume      string `json:"resume,omitempty"`
	Limits      Limits `json:"limits"`
}

// Enqueue queues an instruction for the token's user.
func (c *Client) Enqueue(ctx context.Context, o Order) (*Command, error) {
	body, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var cmd Command
	if _, err := c.do(ctx, http.MethodPost, "/api/session-commands", body, &cmd); err != nil {
		return nil, fmt.Errorf("queue the instruction: %w", err)
	}
	return &cmd, nil
}

// Claim claims the token's user's next instruction, waiting up to wait
// for one; nil when none came.
func (c *Client) Claim(ctx context.Context, wait time.Duration) (*Command, error) {
	var cmd Command
	status, err := c.do(ctx, http.MethodGet, "/api/session-commands?"+url.Values{"wait": {wait.String()}}.Encode(), nil, &cmd)
	if err != nil {
		return nil, fmt.Errorf("claim an instruction: %w", err)
	}
	if status == http.StatusNoContent {
		return nil, nil
	}
	return &cmd, nil
}

// Finish posts a claimed instruction's result.
func (c *Client) Finish(ctx context.Context, id int64, res Result) error {
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if _, err := c.do(ctx, http.MethodPost, "/api/session-commands/"+strconv.FormatInt(id, 10)+"/result", body, nil); err != nil {
		return fmt.Errorf("post the result of instruction %d: %w", id, err)
	}
	return nil
}

// Renew keeps a claimed instruction for another lease and returns it with
// its new lease_until.
func (c *Client) Renew(ctx context.Context, id int64, claim string) (*Command, error) {
	body, err := json.Marshal(map[string]string{"claim": claim})
	if err != nil {
		return nil, err
	}
	var cmd Command
	if _, err := c.do(ctx, http.MethodPost, "/api/session-commands/"+strconv.FormatInt(id, 10)+"/lease", body, &cmd); err != nil {
		return nil, fmt.Errorf("renew the lease of instruction %d: %w", id, err)
	}
	return &cmd, nil
}

// Anchors lists the anchors the console keeps of the token's user's audit
// trail chain.
func (c *Client) Anchors(ctx context.Context, chain string) ([]Anchor, error) {
	var out struct {
		Anchors []Anchor `json:"anchors"`
	}
	if _, err := c.do(ctx, http.MethodGet, "/api/audit-anchors?"+url.Values{"chain": {chain}}.Encode(), nil, &out); err != nil {
		return nil, fmt.Errorf("read the audit trail's anchors: %w", err)
	}
	return out.Anchors, nil
}

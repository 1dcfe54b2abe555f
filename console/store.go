package console

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Triggers: where a run came from.
const (
	TriggerCLI    = "cli"    // reported by a user-to-server token: someone's terminal
	TriggerAction = "action" // reported by an installation token: a workflow
	TriggerBot    = "bot"    // dispatched or run by the bot itself
)

// Command states.
const (
	CommandQueued   = "queued"
	CommandClaimed  = "claimed"
	CommandDone     = "done"     // a result with status succeeded (or any but failed/refused)
	CommandFailed   = "failed"   // a result with status failed
	CommandRefused  = "refused"  // the poller refused it (a repository it does not serve)
	CommandReleased = "released" // only as a result status: back to the queue
)

// Run is one session's report as the console keeps it: the columns the
// Runs page lists, and the report itself.
type Run struct {
	SessionID string        `json:"session_id"`
	Repo      string        `json:"repo"`
	Trigger   string        `json:"trigger"`
	Actor     string        `json:"actor"` // the verified login that reported it
	Status    string        `json:"status"`
	Verdict   string        `json:"verdict,omitempty"` // the contract's, when the report has one
	Turns     int           `json:"turns"`
	Tokens    int           `json:"tokens"`
	Duration  time.Duration `json:"duration_ns"`
	PRURL     string        `json:"pr_url,omitempty"`
	// CostUSD is the report's cost_usd (or, for a bot run, what the bot
	// recorded); nil when unknown: "no price set", never $0.
	CostUSD    *float64        `json:"cost_usd,omitempty"`
	StartedAt  time.Time       `json:"started_at"`
	ReceivedAt time.Time       `json:"received_at"`
	Report     json.RawMessage `json:"report,omitempty"`
}

// RunFilter narrows a list of runs; empty fields match everything.
type RunFilter struct {
	Repo, Status, Actor string
	Limit               int
}

// Limits bound what a queued instruction may spend; zero means the
// poller's default.
type Limits struct {
	MaxTurns int    `json:"max_turns,omitempty"`
	Timeout  string `json:"timeout,omitempty"` // a Go duration, e.g. "45m"
}

// Command is an instruction queued for one login's machines.
type Command struct {
	ID          int64     `json:"id"`
	Target      string    `json:"target"` // the verified login that queued it
	Repo        string    `json:"repo"`
	Instruction string    `json:"instruction"`
	Limits      Limits    `json:"limits"`
	State       string    `json:"state"`
	Claim       string    `json:"claim,omitempty"` // the current claim's id: the result must name it
	LeaseUntil  time.Time `json:"lease_until,omitzero"`
	Attempts    int       `json:"attempts"`
	Result      *Result   `json:"result,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Result is what a poller reports about a claimed command.
type Result struct {
	Claim    string          `json:"claim"`
	Status   string          `json:"status"` // succeeded, failed, refused, or released (back to the queue)
	Summary  string          `json:"summary,omitempty"`
	Contract json.RawMessage `json:"contract,omitempty"`
	PRURL    string          `json:"pr_url,omitempty"`
	Error    string          `json:"error,omitempty"`
	// SessionID names the session's report, when it sent one.
	SessionID string `json:"session_id,omitempty"`
}

// AuditEntry is one line of the append-only audit log.
type AuditEntry struct {
	ID     int64     `json:"id"`
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`  // the verified login, or "" when none was verified
	Action string    `json:"action"` // enqueue, claim, result, report, refuse, forger
	Target string    `json:"target"` // a command id, a session id, a repository
	Reason string    `json:"reason"`
}

// WebSession is a browser's signed-in session; the cookie holds its id,
// the store only the id's hash.
type WebSession struct {
	IDHash  string
	Login   string
	CSRF    string
	Expires time.Time
}

// Errors of the store.
var (
	ErrNotFound   = errors.New("not found")
	ErrNotClaimer = errors.New("the command is not claimed by this claim")
	ErrFinished   = errors.New("the command already has its result")
)

// Store keeps the console's state. Every implementation is safe for
// several processes sharing one database: a claim is taken by one of them.
type Store interface {
	// PutRun stores a run by session id: a second put replaces the first.
	// created reports whether it was new.
	PutRun(ctx context.Context, r *Run) (created bool, err error)
	// GetRun finds a run by session id; ErrNotFound when there is none.
	GetRun(ctx context.Context, sessionID string) (*Run, error)
	// ListRuns lists runs newest first (by start time).
	ListRuns(ctx context.Context, f RunFilter) ([]*Run, error)

	// Enqueue stores a new command (queued) and sets its ID and times.
	Enqueue(ctx context.Context, c *Command) error
	// Claim takes target's oldest queued command, or one whose lease ran
	// out before now, under a new claim until now+lease; nil when there is
	// none.
	Claim(ctx context.Context, target, claim string, now time.Time, lease time.Duration) (*Command, error)
	// Finish records the result of command id for target, once, from the
	// claim that holds it (ErrNotFound, ErrNotClaimer, ErrFinished). A
	// result with status released puts the command back in the queue.
	Finish(ctx context.Context, id int64, target string, res *Result, now time.Time) (*Command, error)
	// Renew extends the lease of command id, held by claim, to until
	// (ErrNotFound, ErrNotClaimer, ErrFinished as Finish).
	Renew(ctx context.Context, id int64, target, claim string, until time.Time) (*Command, error)
	// Commands lists target's commands, newest first.
	Commands(ctx context.Context, target string, limit int) ([]*Command, error)

	// Audit appends an entry; there is no way to change or remove one.
	Audit(ctx context.Context, e *AuditEntry) error
	// AuditLog lists entries newest first.
	AuditLog(ctx context.Context, limit int) ([]*AuditEntry, error)

	// PutSession, GetSession (ErrNotFound when missing or expired at now)
	// and DeleteSession keep the browsers' sessions.
	PutSession(ctx context.Context, s *WebSession) error
	GetSession(ctx context.Context, idHash string, now time.Time) (*WebSession, error)
	DeleteSession(ctx context.Context, idHash string) error

	Close() error
}

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
	SessionID string `json:"session_id"`
	Repo      string `json:"repo"`
	Trigger   string `json:"trigger"`
	Actor     string `json:"actor"` // the verified login that reported it
	// Owner is the identity that first reported the run (Identity.Owner):
	// only a report from it may replace the run.
	Owner      string          `json:"-"`
	Status     string          `json:"status"`
	Verdict    string          `json:"verdict,omitempty"` // the contract's, when the report has one
	Turns      int             `json:"turns"`
	Tokens     int             `json:"tokens"`
	Duration   time.Duration   `json:"duration_ns"`
	PRURL      string          `json:"pr_url,omitempty"`
	StartedAt  time.Time       `json:"started_at"`
	ReceivedAt time.Time       `json:"received_at"`
	Report     json.RawMessage `json:"report,omitempty"`
	// SeenAt is when a live run was last heard from (its events, its polls
	// for controls); zero for a run that only sent its report.
	SeenAt time.Time `json:"seen_at,omitzero"`

	// Read from the report (or the bot's record) when the run is read,
	// not kept apart: what the run was for, how it failed, what it cost
	// (nil when no price was set), and for a bot run the issue or pull
	// request it ran on and the workflow run it dispatched.
	Goal        string   `json:"goal,omitempty"`
	FailureKind string   `json:"failure_kind,omitempty"`
	Error       string   `json:"error,omitempty"`
	CostUSD     *float64 `json:"cost_usd,omitempty"`
	Issue       int      `json:"issue,omitempty"`
	WorkflowURL string   `json:"workflow_url,omitempty"`
	// Kind is the run's kind, change or review, for a run that reported;
	// Findings a review's findings' counts ("1 confirmed, 2 unconfirmed").
	Kind     string `json:"kind,omitempty"`
	Findings string `json:"findings,omitempty"`

	detail *reportDetail // the report, read once (detailOf)
}

// LiveProgress is what a live run's events told of it so far: its state
// (its last state event's), its goal (from its first), its turns, and
// what it spent (CostUSD nil when no price is known). A run's report,
// when it comes, says all of it again.
type LiveProgress struct {
	Status  string   `json:"-"`
	Goal    string   `json:"goal,omitempty"`
	Turns   int      `json:"-"`
	Tokens  int      `json:"-"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// RunFilter narrows a list of runs; empty fields match everything, and
// the others match in any case.
type RunFilter struct {
	Repo, Status, Actor string
	// Since keeps the runs started at or after it. With Since set, a Limit
	// of 0 lists every such run (a window of the overview); otherwise
	// Limit defaults to 100.
	Since time.Time
	Limit int
	// Brief lists the runs without their reports, the fields read from a
	// report (Goal, CostUSD, …) already read: a window of thousands of
	// runs holds one report at a time, not all of them.
	Brief bool
}

// Limits bound what a queued instruction may spend; zero means the
// poller's default.
type Limits struct {
	MaxTurns int    `json:"max_turns,omitempty"`
	Timeout  string `json:"timeout,omitempty"` // a Go duration, e.g. "45m"
	// BudgetUSD is the most the run may spend, in dollars; for a command
	// that resumes a session, a top-up added to its budget.
	BudgetUSD float64 `json:"budget_usd,omitempty"`
}

// Command is an instruction queued for one login's machines.
type Command struct {
	ID          int64  `json:"id"`
	Target      string `json:"target"` // the verified login that queued it
	Repo        string `json:"repo"`
	Instruction string `json:"instruction"`
	// Resume names a session of the target's machine to continue with the
	// instruction (core session resume), rather than start a new one:
	// the top-up of a run whose budget ran out.
	Resume     string    `json:"resume,omitempty"`
	Limits     Limits    `json:"limits"`
	State      string    `json:"state"`
	Claim      string    `json:"claim,omitempty"` // the current claim's id: the result must name it
	LeaseUntil time.Time `json:"lease_until,omitzero"`
	Attempts   int       `json:"attempts"`
	Result     *Result   `json:"result,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
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
	// Audit anchors the poller's audit trail as it stood when it sent the
	// result; the console keeps it apart (see Anchor), not in the result.
	Audit *AnchorPoint `json:"audit,omitempty"`
}

// AnchorPoint is a position in a serve audit trail: the trail's chain id
// (the SHA-256 of its first line), the number of lines it held, and the
// SHA-256 of its last line, which through each line's "prev" commits to
// every line before it.
type AnchorPoint struct {
	Chain string `json:"chain"`
	Seq   int64  `json:"seq"`
	Head  string `json:"head"`
}

// Anchor is an AnchorPoint the console keeps for a login: a copy of the
// trail's head outside the machine that writes the trail, so a trail
// rewritten with every later hash recomputed no longer matches it.
type Anchor struct {
	AnchorPoint
	Login   string    `json:"login"`
	Command int64     `json:"command"` // the instruction whose result carried it
	At      time.Time `json:"at"`
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

// RunEvent is one event of a live run's log (session/live's Event, as the run
// wrote it to events.jsonl), at its position in the log.
type RunEvent struct {
	Seq   int64           `json:"seq"`
	Event json.RawMessage `json:"event"`
	// Line is the event as the run page shows it (filled when read).
	Line string `json:"line"`
	// Kind is the event's kind (filled when read), for the page's styles.
	Kind string `json:"kind"`
}

// Controls: what a person asks a live run from its page.
const (
	ControlMessage   = "message"
	ControlInterrupt = "interrupt"
	ControlStop      = "stop"
)

// Control states: queued on the console, delivered to the run, and what
// the run said of it.
const (
	ControlQueued       = "queued"
	ControlDelivered    = "delivered"
	ControlAcknowledged = "acknowledged"
	ControlRejected     = "rejected" // the run could not take it (it had ended, …)
)

// RunControl is a message, an interrupt or a stop a person sent a live run
// from its page, and the run's acknowledgement.
type RunControl struct {
	ID        int64  `json:"id"`
	SessionID string `json:"session_id"`
	Kind      string `json:"kind"`
	Text      string `json:"text,omitempty"`
	From      string `json:"from"`
	State     string `json:"state"`
	Ack       string `json:"ack,omitempty"`
	// Note is what the page says of it (filled when read).
	Note      string    `json:"note"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// maxRunEvents bounds the events a run keeps on the console; its
// events.jsonl keeps them all.
const maxRunEvents = 20000

// WebSession is a browser's signed-in session; the cookie holds its id,
// the store only the id's hash.
type WebSession struct {
	IDHash string
	Login  string
	// Owner is who signed in, stably (Identity.Owner: "user:ID"); "" for
	// a session stored before it was kept.
	Owner   string
	CSRF    string
	Expires time.Time
}

// Errors of the store.
var (
	ErrNotFound   = errors.New("not found")
	ErrNotClaimer = errors.New("the command is not claimed by this claim")
	ErrFinished   = errors.New("the command already has its result")
	ErrNotOwner   = errors.New("the run was reported by another identity")
	// ErrAnchorConflict is an anchor at a position of a chain where the
	// console already keeps another head: the trail was rewritten (or two
	// trails share a first line). The first is kept.
	ErrAnchorConflict = errors.New("another head is already anchored at this line of the chain")
	// ErrEventGap is a batch of events that starts past the run's last.
	ErrEventGap = errors.New("the batch starts past the events held")
	// ErrTooManyEvents is a run past maxRunEvents.
	ErrTooManyEvents = errors.New("the run has sent as many events as the console keeps")
)

// Store keeps the console's state. Every implementation is safe for
// several processes sharing one database: a claim is taken by one of them.
type Store interface {
	// PutRun stores a run by session id: a second put replaces the first
	// only when its Owner is the stored run's; otherwise it changes nothing
	// and returns ErrNotOwner. A run stored before owners were kept (no
	// Owner) is claimed by the first put whose Actor is its actor, the
	// login that reported it. created reports whether it was new.
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

	// PutAnchor keeps an anchor; the same anchor again is a no-op, another
	// head at a kept position is ErrAnchorConflict. Anchors are never
	// changed or removed.
	PutAnchor(ctx context.Context, a *Anchor) error
	// Anchors lists login's anchors of chain (every chain when ""), by
	// chain and newest line first, at most limit.
	Anchors(ctx context.Context, login, chain string, limit int) ([]*Anchor, error)

	// AppendEvents, Events and SetLive keep a live run's event log (see
	// SQL.AppendEvents; the log is append-only) and what it told so far.
	AppendEvents(ctx context.Context, sessionID string, from int64, events []json.RawMessage, now time.Time) (next int64, err error)
	Events(ctx context.Context, sessionID string, after int64, limit int) ([]*RunEvent, error)
	LastEvents(ctx context.Context, sessionID string, n int) ([]*RunEvent, error)
	SetLive(ctx context.Context, sessionID string, p LiveProgress) error
	// HeardFrom and ExpireLive tell a live run from a lost one (see
	// SQL.ExpireLive): a run silent since before is marked lost, and is
	// live again when it is heard from.
	HeardFrom(ctx context.Context, sessionID string, now time.Time) error
	ExpireLive(ctx context.Context, before time.Time) (lost int64, err error)
	// AddControl, TakeControls, AckControl and Controls keep what people
	// ask a live run from its page, and its answers.
	AddControl(ctx context.Context, c *RunControl) error
	TakeControls(ctx context.Context, sessionID string, now time.Time) ([]*RunControl, error)
	AckControl(ctx context.Context, sessionID string, id int64, ack string, failed bool, now time.Time) (*RunControl, error)
	Controls(ctx context.Context, sessionID string) ([]*RunControl, error)

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

package bot

import (
	"context"
	"time"

	"github.com/coreagent/core/setup"
)

// Run states.
const (
	StateQueued    = "queued"    // accepted, not yet dispatched or started
	StateRunning   = "running"   // dispatched to Actions, or running here
	StateDone      = "done"      // landed (or done with nothing to land)
	StateFailed    = "failed"    // with Error
	StateCancelled = "cancelled" // /core stop
)

// Kinds of run.
const (
	KindFix     = setup.KindFix     // an issue → a draft pull request
	KindResolve = setup.KindResolve // a pull request → commits on its head
	KindReview  = setup.KindReview  // a pull request → one review of its head
)

// Run is one run the bot decided on: who asked for what, and how it went.
type Run struct {
	ID              string // also the status comment's marker
	Repo            string // owner/name
	Number          int    // the issue or pull request
	Kind            string
	Instruction     string
	Actor           string
	ActorID         int64 // the actor's GitHub id; 0 for a run recorded before it was kept
	CommentID       int64 // the comment that asked; 0 for a label
	DeliveryID      string
	InstallationID  int64
	StatusCommentID int64
	State           string
	SessionID       string
	Branch          string
	PRURL           string
	Error           string
	// CostUSD is what the run's session cost, once it ended and its cost
	// is known (local runs: the report; Actions runs: the status comment
	// the Action wrote); nil while unknown.
	CostUSD *float64
	// ReservedUSD is what the run holds of its repository's daily budget
	// while it is active and its cost unknown (Store.CreateRunWithin):
	// the day's spend counts it until the cost is known or the run ends.
	ReservedUSD float64
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// WorkflowURL is the Actions run a dispatch started, once GitHub has
	// named it (a workflow_run delivery); the console links it.
	WorkflowURL string
}

// Active reports whether the run still holds its issue or pull request.
func (r *Run) Active() bool { return r.State == StateQueued || r.State == StateRunning }

// Store keeps the bot's state so that it survives a restart: the deliveries
// seen and the runs.
type Store interface {
	// SeenDelivery records a webhook delivery id and reports whether it had
	// been recorded before.
	SeenDelivery(ctx context.Context, id string) (bool, error)
	// CreateRun records a new run, unless its triggering comment already
	// started one (created false, existing that run) or another run is
	// active on the same issue or pull request (created false, existing the
	// active run). Atomic: two concurrent calls for one issue create one.
	CreateRun(ctx context.Context, r *Run) (created bool, existing *Run, err error)
	// CreateRunWithin is CreateRun within a daily budget, decided in the
	// same transaction as the record (DayBudget.reserve): a run that does
	// not fit is not recorded and err is an *OverBudget; one that fits is
	// recorded holding r.ReservedUSD, set here.
	CreateRunWithin(ctx context.Context, r *Run, budget DayBudget) (created bool, existing *Run, err error)
	// UpdateRun saves a run's state, status comment, session, branch, PR
	// URL, error and cost.
	UpdateRun(ctx context.Context, r *Run) error
	// GetRun finds a run by id; nil when there is none.
	GetRun(ctx context.Context, id string) (*Run, error)
	// ActiveRun finds the active run on an issue or pull request; nil when
	// there is none.
	ActiveRun(ctx context.Context, repo string, number int) (*Run, error)
	// Spent is what the runs on repo created at or after since cost, as far
	// as it is known, for the daily budget.
	Spent(ctx context.Context, repo string, since time.Time) (float64, error)
	// Hold sets what run id holds of the day's budget (ReservedUSD), and
	// nothing else of it.
	Hold(ctx context.Context, id string, usd float64) error
	// Held is what the active runs on repo created at or after since
	// hold of the day's budget (ReservedUSD) while their cost is unknown.
	Held(ctx context.Context, repo string, since time.Time) (float64, error)
	// SpentByRepo is Spent for every repository with runs since since.
	SpentByRepo(ctx context.Context, since time.Time) (map[string]float64, error)
	// CountByState counts the runs in each state, for the metrics.
	CountByState(ctx context.Context) (map[string]int, error)
	// Abandon fails every run in one of states with reason, and returns
	// them: on start, the runs a previous process left in flight.
	Abandon(ctx context.Context, states []string, reason string) ([]*Run, error)
	// Prune forgets the deliveries seen before before.
	Prune(ctx context.Context, before time.Time) (int64, error)
	Close() error
}

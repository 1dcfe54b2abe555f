package bot

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/status"
)

// The daily budget per repository (CORE_BOT_DAILY_BUDGET_USD): what the
// bot's runs on one repository may cost in a UTC day, a hard cap however
// many runs start together. A run is recorded only in the same store
// transaction that sums the day's spend (Store.CreateRunWithin); once the
// spend reaches the budget, the run is refused with a comment. The sum
// counts what is known: local runs record their report's cost when they
// end, Actions runs the cost the Action wrote into their status comment
// when the workflow run completes; and what the active runs hold. A local
// run, whose session counts dollars as it goes, holds all that is left of
// the day when it is recorded, lowered to its own budget once its options
// are read (capToDay), and nothing once it ends (its cost counts then) or
// when a restart abandons it. An Actions run, or one without a price,
// holds nothing: the bot cannot cap what it spends.

// DayBudget is the daily budget a new run must fit in.
type DayBudget struct {
	Since time.Time // the day's start
	USD   float64   // what a repository's runs may cost in the day
	// Reserve is what the new run may spend, held until its cost is known:
	// math.Inf(1) for all that is left of the day, 0 for nothing.
	Reserve float64
}

// OverBudget is CreateRunWithin's refusal: the day's runs cost Spent and
// hold Held, which leaves nothing of Budget.
type OverBudget struct {
	Spent, Held, Budget float64
}

func (o *OverBudget) Error() string {
	held := ""
	if o.Held > 0 {
		held = fmt.Sprintf(" and its runs in flight hold $%.4f", o.Held)
	}
	return fmt.Sprintf("this repository's daily budget is spent: its runs cost $%.4f today (UTC)%s, and the budget is $%.4f a day (CORE_BOT_DAILY_BUDGET_USD). Ask again tomorrow, or ask whoever runs core's bot to raise it.",
		o.Spent, held, o.Budget)
}

// reserve decides a new run against the day, whose runs cost spent and
// hold held: what the run holds (Reserve, no more than is left), or an
// *OverBudget when nothing is left.
func (d DayBudget) reserve(spent, held float64) (float64, error) {
	left := d.USD - spent - held
	if left <= 0 || math.IsNaN(left) {
		return 0, &OverBudget{Spent: spent, Held: held, Budget: d.USD}
	}
	return min(max(d.Reserve, 0), left), nil
}

// dayBudget is the budget a new run on the bot's repositories must fit
// in; ok is false when no daily budget is set. A local run holds all that
// is left (see above).
func (b *Base) dayBudget() (d DayBudget, ok bool) {
	if b.Config.DailyBudgetUSD <= 0 {
		return DayBudget{}, false
	}
	d = DayBudget{Since: dayStart(b.Now()), USD: b.Config.DailyBudgetUSD}
	if _, local := b.Runner.(*LocalRunner); local {
		d.Reserve = math.Inf(1)
	}
	return d, true
}

// dayStart is the start of now's day, UTC.
func dayStart(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// createRun records run, within the day's budget when one is set.
func (b *Base) createRun(ctx context.Context, run *Run) (bool, *Run, error) {
	if d, ok := b.dayBudget(); ok {
		return b.Store.CreateRunWithin(ctx, run, d)
	}
	return b.Store.CreateRun(ctx, run)
}

// capToDay lowers a local run's budget to what it holds of its
// repository's day, when a price lets the session count dollars, and
// lowers what it holds to that budget; without a price it holds nothing.
func (b *Base) capToDay(ctx context.Context, run *Run, opts *session.Options) error {
	if _, ok := b.dayBudget(); !ok || run.ReservedUSD <= 0 {
		return nil
	}
	if opts.Limits.Price == nil {
		run.ReservedUSD = 0
		return b.Store.Hold(ctx, run.ID, 0)
	}
	if opts.Limits.Budget.USD == 0 || run.ReservedUSD < opts.Limits.Budget.USD {
		opts.Limits.Budget.USD = max(run.ReservedUSD, 0.0001) // zero would mean no budget
	}
	run.ReservedUSD = opts.Limits.Budget.USD
	return b.Store.Hold(ctx, run.ID, run.ReservedUSD)
}

// costText says what a run cost, for its status comment.
func costText(rep *session.Report) string {
	text := "Cost: " + budget.CostText(rep.CostUSD)
	if rep.Budget != nil {
		text += "; budget: " + rep.Budget.Line()
	}
	return text + "."
}

func orRef(url, branch string) string {
	if url != "" {
		return url
	}
	return "branch `" + branch + "`"
}

// recordCost reads what an Actions run cost from the cost marker the
// Action wrote into its status comment; unknown stays nil.
func (b *Base) recordCost(ctx context.Context, client *gh.Client, run *Run) error {
	if run.StatusCommentID == 0 {
		return nil
	}
	owner, repo, _ := strings.Cut(run.Repo, "/")
	c, err := client.GetComment(ctx, owner, repo, run.StatusCommentID)
	if err != nil {
		return fmt.Errorf("read the cost of run %s: %w", run.ID, err)
	}
	if cost, ok := status.CostIn(c.Body); ok {
		run.CostUSD = &cost
	}
	return nil
}

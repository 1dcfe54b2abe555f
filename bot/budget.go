package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/status"
)

// The daily budget per repository (CORE_BOT_DAILY_BUDGET_USD): what the
// bot's runs on one repository may cost in a UTC day. Before a run is
// recorded, what the day's runs cost so far is summed from the store; once
// it reaches the budget, the run is refused with a comment. The sum counts
// what is known: local runs record their report's cost when they end,
// Actions runs the cost the Action wrote into their status comment when the
// workflow run completes; a run still in flight, or one without a price,
// counts nothing until then.

// dayStart is the start of now's day, UTC.
func dayStart(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// dailyLeft is what is left of repo's budget today; ok is false when no
// daily budget is set.
func (b *Base) dailyLeft(ctx context.Context, repo string) (left, spent float64, ok bool, err error) {
	budget := b.Config.DailyBudgetUSD
	if budget <= 0 {
		return 0, 0, false, nil
	}
	spent, err = b.Store.Spent(ctx, repo, dayStart(b.Now()))
	if err != nil {
		return 0, 0, true, err
	}
	return budget - spent, spent, true, nil
}

// overDailyBudget says why a run on repo must not start, or "" when it
// may.
func (b *Base) overDailyBudget(ctx context.Context, repo string) (string, error) {
	left, spent, ok, err := b.dailyLeft(ctx, repo)
	if err != nil || !ok || left > 0 {
		return "", err
	}
	return fmt.Sprintf("this repository's daily budget is spent: its runs cost $%.4f today (UTC), and the budget is $%.4f a day (CORE_BOT_DAILY_BUDGET_USD). Ask again tomorrow, or ask whoever runs core's bot to raise it.",
		spent, b.Config.DailyBudgetUSD), nil
}

// capToDay lowers a local run's budget to what is left of its
// repository's day, when a price lets the session count dollars.
func (b *Base) capToDay(ctx context.Context, run *Run, opts *session.Options) error {
	left, _, ok, err := b.dailyLeft(ctx, run.Repo)
	if err != nil || !ok || opts.Limits.Price == nil {
		return err
	}
	if opts.Limits.Budget.USD == 0 || left < opts.Limits.Budget.USD {
		opts.Limits.Budget.USD = max(left, 0.0001) // zero would mean no budget
	}
	return nil
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

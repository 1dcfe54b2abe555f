package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coreagent/core/console"
)

// ConsoleConfig is what the console adds to the bot's configuration.
type ConsoleConfig struct {
	Org          string // CORE_BOT_CONSOLE_ORG: the console is on when set
	ClientID     string // CORE_BOT_CLIENT_ID: the App's OAuth client id
	ClientSecret string // CORE_BOT_CLIENT_SECRET
	WebURL       string // CORE_BOT_WEB_URL: GitHub's web host (default https://github.com)
	PublicURL    string // CORE_BOT_PUBLIC_URL: the console's address, for the sign-in's callback
}

// recentRuns is the optional ability of a Store to list its newest runs,
// which the console shows.
type recentRuns interface {
	RecentRuns(ctx context.Context, limit int) ([]*Run, error)
}

// botRuns shows the bot's runs on the console's Runs page, and what they
// cost today.
type botRuns struct {
	store  recentRuns
	spend  Store
	budget float64
	now    func() time.Time
}

// SpentToday is what the bot's runs on each repository cost today (UTC).
func (b botRuns) SpentToday(ctx context.Context) (console.DaySpend, error) {
	by, err := b.spend.SpentByRepo(ctx, dayStart(b.now()))
	return console.DaySpend{Budget: b.budget, ByRepo: by}, err
}

// RecentRuns lists the bot's newest runs as the console lists runs: by
// session id once the session is known, else by run id.
func (b botRuns) RecentRuns(ctx context.Context, limit int) ([]*console.Run, error) {
	runs, err := b.store.RecentRuns(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*console.Run, 0, len(runs))
	for _, r := range runs {
		id := r.SessionID
		if id == "" {
			id = r.ID
		}
		cr := &console.Run{
			SessionID: id, Repo: r.Repo, Trigger: console.TriggerBot, Actor: r.Actor, Status: r.State,
			PRURL: r.PRURL, StartedAt: r.CreatedAt, ReceivedAt: r.UpdatedAt,
			Goal: goal(r), Error: r.Error, Issue: r.Number, WorkflowURL: r.WorkflowURL, CostUSD: r.CostUSD,
		}
		if !r.Active() {
			cr.Duration = r.UpdatedAt.Sub(r.CreatedAt)
		}
		out = append(out, cr)
	}
	return out, nil
}

// goal says in a line what a bot run was asked: the words after the
// command, or else the command and its issue ("fix #12").
func goal(r *Run) string {
	if in := []rune(strings.Join(strings.Fields(r.Instruction), " ")); len(in) > 200 {
		return string(in[:199]) + "…"
	} else if len(in) > 0 {
		return string(in)
	}
	return fmt.Sprintf("%s #%d", r.Kind, r.Number)
}

// MountConsole serves the console (package console) on the bot's mux,
// with the App's credentials and store, showing the bot's own runs.
// Shutdown ends its long polls.
func (b *Bot) MountConsole(cfg ConsoleConfig, store console.Store) error {
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return errors.New("the console needs the App's OAuth credentials: set CORE_BOT_CLIENT_ID and CORE_BOT_CLIENT_SECRET")
	}
	c := console.Config{
		Store: store, Org: cfg.Org, AppID: b.base.Config.AppID, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		APIURL: b.base.Config.APIURL, WebURL: cfg.WebURL, PublicURL: cfg.PublicURL, App: console.NewApp(b.base.ClientCreator),
		Logger: b.logger,
	}
	if rr, ok := b.base.Store.(recentRuns); ok {
		c.BotRuns = botRuns{store: rr, spend: b.base.Store, budget: b.base.Config.DailyBudgetUSD, now: b.base.Now}
	}
	h, err := console.New(c)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	for _, p := range console.Paths() {
		b.mux.Handle(p, h)
	}
	b.console = h
	return nil
}

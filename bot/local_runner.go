package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/setup"
)

// LocalRunner runs sessions in the bot's own process, for a single
// self-hosted machine: at most Workers at once; a run that waits longer
// than the pending timeout for a worker fails with a clear status.
type LocalRunner struct {
	base *Base
	// options returns the session options every run starts from (store,
	// sandbox, model); the runner adds the repository, the goal and the
	// GitHub client.
	options func(ctx context.Context) (session.Options, error)
	slots   chan struct{}

	mu     sync.Mutex
	runs   map[string]*localRun
	closed bool
	wg     sync.WaitGroup
}

// localRun is a run this process carries out.
type localRun struct {
	cancel context.CancelFunc
	// ctl hands the run the messages and interrupts of the person who
	// started it.
	ctl *live.Control
	// why says who ended it early: "stop" (/core stop) or "shutdown".
	why string
}

var _ Runner = (*LocalRunner)(nil)

// NewLocalRunner makes the runner; options sets each run up.
func NewLocalRunner(base *Base, options func(ctx context.Context) (session.Options, error)) *LocalRunner {
	return &LocalRunner{base: base, options: options, slots: make(chan struct{}, base.Config.Workers), runs: map[string]*localRun{}}
}

// Start queues the run; it starts when a worker is free. The run outlives
// the delivery that asked for it: its context keeps ctx's values only.
func (l *LocalRunner) Start(ctx context.Context, client *gh.Client, run *Run, _ string) error {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	runCtx = zerolog.Ctx(ctx).With().Str(logKeyRun, run.ID).Logger().WithContext(runCtx)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		cancel()
		return l.base.setStatus(ctx, client, run, StateFailed, "failed: the bot is shutting down; ask again shortly.")
	}
	lr := &localRun{cancel: cancel, ctl: live.NewControl()}
	l.runs[run.ID] = lr
	l.wg.Add(1)
	l.mu.Unlock()
	go func() {
		defer l.wg.Done()
		defer l.forget(run.ID)
		l.work(runCtx, client, run, lr)
	}()
	return nil
}

func (l *LocalRunner) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.runs[id]; ok {
		r.cancel()
		delete(l.runs, id)
	}
}

// end cancels a run here and says why; false when it is not running here.
func (l *LocalRunner) end(id, why string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.runs[id]
	if ok {
		r.why = why
		r.cancel()
	}
	return ok
}

// Message hands a person's message to a run here; here is false when the
// run is not this process's.
func (l *LocalRunner) Message(runID string, m live.Message) (reply string, here bool, err error) {
	ctl := l.control(runID)
	if ctl == nil {
		return "", false, nil
	}
	reply, err = ctl.Send(m)
	return reply, true, err
}

// Interrupt stops the current turn of a run here.
func (l *LocalRunner) Interrupt(runID, from string) (reply string, here bool, err error) {
	ctl := l.control(runID)
	if ctl == nil {
		return "", false, nil
	}
	reply, err = ctl.Interrupt(from)
	return reply, true, err
}

func (l *LocalRunner) control(runID string) *live.Control {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.runs[runID]; ok {
		return r.ctl
	}
	return nil
}

// Stop cancels a run here.
func (l *LocalRunner) Stop(ctx context.Context, client *gh.Client, run *Run) error {
	l.end(run.ID, "stop")
	return l.base.setStatus(ctx, client, run, StateCancelled, "stopped.")
}

// Shutdown refuses new runs, cancels the running ones (each fails with a
// status that says the bot shut down) and waits for them until ctx ends.
func (l *LocalRunner) Shutdown(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	var ids []string
	for id := range l.runs {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	for _, id := range ids {
		l.end(id, "shutdown")
	}
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("local runs still ending: %w", ctx.Err())
	}
}

func (l *LocalRunner) work(ctx context.Context, client *gh.Client, run *Run, lr *localRun) {
	logger := zerolog.Ctx(ctx)
	report := func(state, text string) {
		if err := l.base.setStatus(context.WithoutCancel(ctx), client, run, state, text); err != nil {
			logger.Error().Err(err).Msg("Could not update the run's status")
		}
	}
	ended := func() {
		l.mu.Lock()
		why := lr.why
		l.mu.Unlock()
		switch why {
		case "shutdown":
			run.Error = "the bot shut down"
			report(StateFailed, "failed: the bot shut down while this run was in flight, so it was stopped. Ask again with `/core fix`.")
		case "stop":
			// /core stop said so already; said again, since a headline
			// the run wrote as it stopped (landed, waiting) may have
			// come after it and marked the run running.
			report(StateCancelled, "stopped.")
		}
	}
	timer := time.NewTimer(l.base.Config.PendingTimeout)
	defer timer.Stop()
	select {
	case l.slots <- struct{}{}:
		defer func() { <-l.slots }()
	case <-timer.C:
		run.Error = "no worker was free"
		report(StateFailed, fmt.Sprintf("failed: no worker was free for %s; ask again later.", l.base.Config.PendingTimeout))
		return
	case <-ctx.Done():
		ended()
		return
	}
	current, err := l.base.Store.GetRun(ctx, run.ID)
	if err != nil || current == nil || !current.Active() {
		return // stopped or expired meanwhile
	}
	report(StateRunning, state.Active.Word()+".")
	rep, err := l.session(ctx, run, lr.ctl, func(st state.Status, prURL string, idle time.Duration) {
		// The headline follows the run's life: landed and waiting for
		// its starter, or at work again on a message; a stopped run's
		// headline is the stop's.
		if ctx.Err() != nil {
			return
		}
		switch {
		case st == state.Idle && idle > 0:
			landed := "its work"
			if prURL != "" {
				landed = prURL
			}
			report(StateRunning, fmt.Sprintf("%s: landed %s; waiting %s for more: @%s can comment `/core <message>`.", state.Idle.Word(), landed, idle, run.Actor))
		case st == state.Active && prURL != "":
			report(StateRunning, fmt.Sprintf("%s again, on @%s's message.", state.Active.Word(), run.Actor))
		}
	})
	if rep != nil {
		run.CostUSD = rep.CostUSD
	}
	if ctx.Err() != nil {
		ended()
		return
	}
	reportOutcome(run, rep, err, report)
}

// reportOutcome records in run what its session came to, and reports it
// as the status comment's headline.
func reportOutcome(run *Run, rep *session.Report, err error, report func(state, text string)) {
	switch {
	case err != nil:
		run.Error = err.Error()
		report(StateFailed, "failed: "+setup.Word(err, setup.EnvWording).Error())
	case rep.Status.Succeeded():
		run.SessionID, run.Branch, run.PRURL = rep.ID, rep.Branch, rep.PRURL
		text := "done"
		if rep.PRURL != "" {
			text += ": " + rep.PRURL
		}
		if f, ok := rep.Finding(session.FindingNoChange); ok {
			text += " with no change to land: " + f.Detail
		} else {
			text += " (" + rep.Contract.StatusLine() + ")"
		}
		report(StateDone, text+". "+costText(rep))
	case rep.Status == state.BudgetExhausted:
		// Not a failure: the budget stopped it, and what it did landed.
		run.SessionID, run.Branch, run.PRURL, run.Error = rep.ID, rep.Branch, rep.PRURL, rep.Error
		text := "stopped at its budget with nothing to land"
		if rep.Landed {
			text = "stopped at its budget and landed its unfinished work as a draft marked [budget exhausted]: " + orRef(rep.PRURL, rep.Branch)
		}
		report(StateDone, fmt.Sprintf("%s. %s %s", text, rep.Error, costText(rep)))
	case rep.Status == state.Partial && rep.Contract.Broken():
		run.SessionID, run.Branch, run.PRURL, run.Error = rep.ID, rep.Branch, rep.PRURL, rep.Error
		report(StateFailed, fmt.Sprintf("landed as a draft, but %s: %s. %s", rep.Contract.Line(), rep.PRURL, costText(rep)))
	default:
		run.SessionID, run.Error = rep.ID, rep.Error
		report(StateFailed, fmt.Sprintf("%s (%s): %s %s", rep.Status, rep.FailureKind, rep.Error, costText(rep)))
	}
}

// session runs the session as the installation: API calls through its
// client (whose transport refreshes its token), git with a token source
// that mints a fresh token when the last one is about to expire, so a
// session longer than a token's hour still pushes.
func (l *LocalRunner) session(ctx context.Context, run *Run, ctl *live.Control, onState func(state.Status, string, time.Duration)) (*session.Report, error) {
	opts, err := l.options(ctx)
	if err != nil {
		return nil, err
	}
	opts.Live.Control = ctl
	idle := opts.Live.IdleTimeout
	opts.Live.OnState = func(st state.Status, prURL string) { onState(st, prURL, idle) }
	inst, err := l.base.NewInstallationClient(run.InstallationID)
	if err != nil {
		return nil, fmt.Errorf("client for installation %d: %w", run.InstallationID, err)
	}
	client := gh.WithTokens(inst, l.base.installationTokens(run.InstallationID))
	if _, err := client.Token(ctx); err != nil {
		return nil, err
	}
	setup.AddGitHub(&opts, client)
	asked := opts.Limits.Budget.USD
	if err := l.base.capToDay(ctx, run, &opts); err != nil {
		return nil, err
	}
	owner, repo, _ := strings.Cut(run.Repo, "/")
	rep, err := setup.Run(ctx, setup.Work{Kind: run.Kind, Client: client, Owner: owner, Repo: repo, Number: run.Number, Instruction: run.Instruction}, opts)
	return rep, dayTooSmall(err, asked, opts.Limits.Budget.USD)
}

// dayTooSmall words a budget the session refused as too small for its
// first request as the day's, when what was left of the day (capToDay)
// set it rather than the bot's own CORE_SESSION_BUDGET_USD.
func dayTooSmall(err error, asked, capped float64) error {
	var ce *session.ConfigError
	if !errors.As(err, &ce) || ce.Option != setup.BudgetUSD || capped == asked {
		return err
	}
	return fmt.Errorf("this repository's daily budget has $%.4f left today (UTC, CORE_BOT_DAILY_BUDGET_USD), too little for a run's first request (%w). Ask again tomorrow, or ask whoever runs core's bot to raise it", capped, ce.Err)
}

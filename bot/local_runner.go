package bot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/resolver"
	"github.com/coreagent/core/session"
)

// LocalRunner runs sessions in the bot's own process, for a single
// self-hosted machine: at most Workers at once; a run that waits longer
// than the pending timeout for a worker fails with a clear status.
type LocalRunner struct {
	Base *Base
	// Options returns the session options every run starts from (store,
	// sandbox, model); the runner adds the repository, the goal and the
	// GitHub client.
	Options func() (session.Options, error)
	// Context is the lifetime of the runs: cancelling it stops them all.
	Context context.Context

	once    sync.Once
	slots   chan struct{}
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	wg      sync.WaitGroup
}

var _ Runner = (*LocalRunner)(nil)

func (l *LocalRunner) init() {
	l.once.Do(func() {
		l.slots = make(chan struct{}, l.Base.Config.Workers)
		l.cancels = map[string]context.CancelFunc{}
		if l.Context == nil {
			l.Context = context.Background()
		}
	})
}

// Start queues the run; it starts when a worker is free.
func (l *LocalRunner) Start(ctx context.Context, client *gh.Client, run *Run, _ string) error {
	l.init()
	runCtx, cancel := context.WithCancel(l.Context)
	runCtx = zerolog.Ctx(ctx).With().Str(logKeyRun, run.ID).Logger().WithContext(runCtx)
	l.mu.Lock()
	l.cancels[run.ID] = cancel
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer l.forget(run.ID)
		l.work(runCtx, client, run)
	}()
	return nil
}

// Wait waits for every started run to end.
func (l *LocalRunner) Wait() { l.wg.Wait() }

func (l *LocalRunner) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.cancels[id]; ok {
		c()
		delete(l.cancels, id)
	}
}

// Stop cancels a run here.
func (l *LocalRunner) Stop(ctx context.Context, client *gh.Client, run *Run) error {
	l.init()
	l.mu.Lock()
	cancel, ok := l.cancels[run.ID]
	l.mu.Unlock()
	if ok {
		cancel()
	}
	return l.Base.setStatus(ctx, client, run, StateCancelled, "stopped.")
}

func (l *LocalRunner) work(ctx context.Context, client *gh.Client, run *Run) {
	logger := zerolog.Ctx(ctx)
	report := func(state, text string) {
		if err := l.Base.setStatus(context.WithoutCancel(ctx), client, run, state, text); err != nil {
			logger.Error().Err(err).Msg("Could not update the run's status")
		}
	}
	timer := time.NewTimer(l.Base.Config.PendingTimeout)
	defer timer.Stop()
	select {
	case l.slots <- struct{}{}:
		defer func() { <-l.slots }()
	case <-timer.C:
		run.Error = "no worker was free"
		report(StateFailed, fmt.Sprintf("failed: no worker was free for %s; ask again later.", l.Base.Config.PendingTimeout))
		return
	case <-ctx.Done():
		return // stopped while pending
	}
	current, err := l.Base.Store.GetRun(ctx, run.ID)
	if err != nil || current == nil || !current.Active() {
		return // stopped or expired meanwhile
	}
	report(StateRunning, "running.")
	rep, err := l.session(ctx, run)
	switch {
	case ctx.Err() != nil:
		return // /core stop already said so
	case err != nil:
		run.Error = err.Error()
		report(StateFailed, "failed: "+err.Error())
	case rep.Status == session.StatusDone:
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
		report(StateDone, text+".")
	case rep.Status == session.StatusPartial && rep.Contract.Broken():
		run.SessionID, run.Branch, run.PRURL, run.Error = rep.ID, rep.Branch, rep.PRURL, rep.Error
		report(StateFailed, fmt.Sprintf("landed as a draft, but %s: %s.", rep.Contract.Line(), rep.PRURL))
	default:
		run.SessionID, run.Error = rep.ID, rep.Error
		report(StateFailed, fmt.Sprintf("%s (%s): %s", rep.Status, rep.FailureKind, rep.Error))
	}
}

// session runs the session with an installation token of its own, so that
// git can push.
func (l *LocalRunner) session(ctx context.Context, run *Run) (*session.Report, error) {
	opts, err := l.Options()
	if err != nil {
		return nil, err
	}
	token, err := l.installationToken(ctx, run.InstallationID)
	if err != nil {
		return nil, err
	}
	client, err := gh.New(gh.Credentials{Token: token, APIURL: l.Base.Config.APIURL}, nil)
	if err != nil {
		return nil, err
	}
	owner, repo, _ := strings.Cut(run.Repo, "/")
	opts.Repo, opts.GitHub = run.Repo, client
	opts.Secrets = append(opts.Secrets, client.Secrets()...)
	if run.Kind == KindResolve {
		return resolver.Run(ctx, resolver.Request{Client: client, Owner: owner, Repo: repo, Number: run.Number, Instruction: run.Instruction}, opts)
	}
	opts.Issue, opts.Prompt = run.Number, run.Instruction
	return session.Run(ctx, opts)
}

func (l *LocalRunner) installationToken(ctx context.Context, installationID int64) (string, error) {
	app, err := l.Base.NewAppClient()
	if err != nil {
		return "", fmt.Errorf("app client: %w", err)
	}
	tok, _, err := app.Apps.CreateInstallationToken(ctx, installationID, nil)
	if err != nil {
		return "", fmt.Errorf("installation token for %d: %w", installationID, err)
	}
	return tok.GetToken(), nil
}

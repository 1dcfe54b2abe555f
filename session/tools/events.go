package tools

import (
	"cmp"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/live"
)

// EventRunner is the run's sandbox as the tools' Runner, each command run
// through Verify or RunHost told to the run's event log as a command
// event (and the dependency step the sandbox ran before it as a deps
// event), once it ended. It embeds the sandbox, so that run_shell finds
// its box and its background processes.
type EventRunner struct {
	*sandbox.Sandbox
	Log *live.EventLog
	Now func() time.Time
	// Turn is the run's turn now, the turn a command belongs to.
	Turn func() int
	// told is the dependency steps' skips and failures told so far.
	told *sync.Map
}

// NewEventRunner returns sb as a Runner that tells log of each command.
func NewEventRunner(sb *sandbox.Sandbox, log *live.EventLog, now func() time.Time, turn func() int) EventRunner {
	return EventRunner{Sandbox: sb, Log: log, Now: now, Turn: turn, told: &sync.Map{}}
}

// Verify runs argv confined, as the sandbox does (its dependency step
// first, when its ecosystem has one), and tells of it.
func (r EventRunner) Verify(ctx context.Context, tier lang.Tier, argv []string, opts sandbox.RunOptions) (sandbox.Result, error) {
	began := r.Now()
	d := &depsStep{w: opts.Progress, now: r.Now}
	opts.Progress = d
	res, err := r.Sandbox.Verify(ctx, tier, argv, opts)
	if err == nil {
		r.depsEvent(d, res)
	}
	r.commandEvent(ctx, argv, res, err, began)
	return res, err
}

// RunHost runs argv on the host, as the sandbox does, and tells of it.
func (r EventRunner) RunHost(ctx context.Context, argv []string, opts sandbox.RunOptions) (sandbox.Result, error) {
	began := r.Now()
	res, err := r.Sandbox.RunHost(ctx, argv, opts)
	r.commandEvent(ctx, argv, res, err, began)
	return res, err
}

// Warm starts the sandbox's warm-up of workspace (Sandbox.Warm) and,
// once it ends, tells of it as a command in no turn: its compile, where
// it ran, its exit, or why it could not run; and of the module download
// it ran, as a deps event (ok with its duration, or failed and why). A
// warm-up the run stopped is not told; one is told once.
func (r EventRunner) Warm(ctx context.Context, workspace string) *sandbox.Warmup {
	w := r.Sandbox.Warm(ctx, workspace)
	if w == nil || r.told == nil {
		return w
	}
	if _, told := r.told.LoadOrStore(w, true); told {
		return w
	}
	go func() {
		<-w.Done()
		r.warmEvents(context.WithoutCancel(ctx), w.Result())
	}()
	return w
}

// WarmText heads the text of the warm-up's command event.
const WarmText = "the warm-up, in the background"

// warmEvents tells how a warm-up ended (warmEnded in session words it
// for people).
func (r EventRunner) warmEvents(ctx context.Context, res sandbox.WarmResult) {
	first, _, _ := strings.Cut(res.Output, "\n")
	switch {
	case res.Setup && strings.HasPrefix(first, goDownloadFailed):
		if _, told := r.told.LoadOrStore("failed"+first, true); !told {
			r.Log.Add(live.Event{Kind: live.EventDeps, Step: live.Step{Verdict: "failed"}, Text: WarmText + ": " + first})
		}
	case res.Download > 0:
		// The module download it ran, before any command waited for one.
		r.Log.Add(live.Event{Kind: live.EventDeps, Step: live.Step{Verdict: "ok", DurationMS: live.Took(res.Download)}, Text: WarmText})
	}
	if errors.Is(res.Err, context.Canceled) {
		// The run stopped it (at done, or at its end): cut short on
		// purpose, as a background command killed at freeze, it has no
		// exit to tell.
		return
	}
	e := live.Event{Kind: live.EventCommand, Target: CommandText(res.Argv), Text: WarmText, Step: live.Step{DurationMS: live.Took(res.Duration)}}
	r.Log.Add(r.ended(ctx, e, res.Result, res.Err))
}

// teller is a Runner that tells of the commands the tools run another
// way than through it (EventRunner: in the box).
type teller interface {
	tell(ctx context.Context, argv []string, run func() (sandbox.Result, error)) (sandbox.Result, error)
}

// tell runs run, a command the tools run in the box rather than through
// Verify, and tells of it as of theirs.
func (r EventRunner) tell(ctx context.Context, argv []string, run func() (sandbox.Result, error)) (sandbox.Result, error) {
	began := r.Now()
	res, err := run()
	r.commandEvent(ctx, argv, res, err, began)
	return res, err
}

// commandEvent tells of one sandbox command.
func (r EventRunner) commandEvent(ctx context.Context, argv []string, res sandbox.Result, err error, began time.Time) {
	e := live.Event{Kind: live.EventCommand, Turn: r.Turn(), Target: CommandText(argv), Step: live.Step{DurationMS: live.Took(r.Now().Sub(began))}}
	r.Log.Add(r.ended(ctx, e, res, err))
}

// ended is e, a command's event, with how res ended: one the sandbox
// refused to run (err), or that never started, has no exit status, and
// its text (after e's own) says why.
func (r EventRunner) ended(ctx context.Context, e live.Event, res sandbox.Result, err error) live.Event {
	why := ""
	switch {
	case err != nil:
		why = err.Error()
	case res.Setup:
		why = "core's preparation for it failed; it did not run"
	default:
		e.Backend = Backend(ctx, r.Sandbox, res.Sandboxed)
		if !res.TimedOut && res.ExitCode >= 0 {
			exit := res.ExitCode
			e.Exit = &exit
		}
	}
	if why != "" && e.Text != "" {
		why = e.Text + ": " + why
	}
	e.Text = cmp.Or(why, e.Text)
	e.Limit = res.Limit
	if res.TimedOut && e.Limit == "" {
		e.Limit = "time"
	}
	return e
}

// Backend names where a command ran: the backend sb's probe chose when
// it ran confined (its answer is kept: no probe runs again), else the
// host.
func Backend(ctx context.Context, sb *sandbox.Sandbox, sandboxed bool) string {
	if !sandboxed || sb == nil {
		return "host"
	}
	return sb.Probe(ctx).Backend
}

// CommandText is a command as the tools show it: a shell command the
// host ran as bash -c as it was written, else its argv joined.
func CommandText(argv []string) string {
	if len(argv) == 3 && argv[0] == "bash" && argv[1] == "-c" {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

// depsStep is a command's progress writer that also notes the dependency
// step the sandbox ran before it (the wait it tells through
// sandbox.Waits), for the run's deps event.
type depsStep struct {
	w   io.Writer
	now func() time.Time
	mu  sync.Mutex
	ran bool
	// took is how long the step took.
	took time.Duration
}

func (d *depsStep) Write(p []byte) (int, error) {
	if d.w == nil {
		return len(p), nil
	}
	return d.w.Write(p)
}

// Waiting passes the wait on to the writer's own Waits (a heartbeat),
// and times a dependency step.
func (d *depsStep) Waiting(what string) func() {
	ended := func() {}
	if w, ok := d.w.(sandbox.Waits); ok {
		ended = w.Waiting(what)
	}
	if !strings.HasPrefix(what, "the dependency step") && !strings.HasPrefix(what, goDownloadUnderWay) {
		return ended
	}
	began := d.now()
	return func() {
		ended()
		d.mu.Lock()
		defer d.mu.Unlock()
		d.ran, d.took = true, d.now().Sub(began)
	}
}

// depsNoFetch and depsFailed are in the notes the sandbox heads a
// command's output with when its dependency step fetched nothing (it did
// not apply, or could not run) or failed.
const (
	depsNoFetch = "core fetched no "
	depsFailed  = "the command runs without the dependencies"
	// Go's: the download failed, or the module files were refused (the
	// command did not run, Result.Setup); and the wait for the download
	// the warm-up started, which is this command's dependency step.
	goDownloadFailed   = "go mod download (run by core"
	goDownloadRefused  = "core did not download the module dependencies"
	goDownloadUnderWay = "the module download under way"
)

// depsEvent tells of the dependency step run before a command (ok, or
// failed and why), or of one it skipped and why; each skip or failure
// once a run, as the sandbox says them again for every later command.
func (r EventRunner) depsEvent(d *depsStep, res sandbox.Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	first, _, _ := strings.Cut(res.Output, "\n")
	e := live.Event{Kind: live.EventDeps, Turn: r.Turn(), Step: live.Step{DurationMS: live.Took(d.took)}}
	switch {
	case res.Deps != nil:
		e.Verdict, e.Text = "failed", res.Deps.Error()
	case strings.Contains(first, depsFailed), res.Setup && strings.HasPrefix(first, goDownloadFailed):
		e.Verdict, e.Text = "failed", first
	case res.Setup && strings.HasPrefix(first, goDownloadRefused):
		e.Verdict, e.Text = "skipped", first
	case d.ran:
		e.Verdict = "ok"
	case strings.HasPrefix(first, depsNoFetch):
		e.Verdict, e.Text = "skipped", first
	default:
		return
	}
	if e.Verdict != "ok" && r.told != nil {
		if _, told := r.told.LoadOrStore(e.Verdict+e.Text, true); told {
			return
		}
	}
	r.Log.Add(e)
}

package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/heartbeat"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/protocol"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
	"github.com/coreagent/core/session/transcript"
)

// maxMalformed is how many malformed replies in a row fail a run.
const maxMalformed = 3

// recordEvery is how often (in turns) a running session's record is saved
// between state transitions, and recordGap the least time between two such
// saves (a save costs a file creation and a rename; turns can be quick).
const (
	recordEvery = 5
	recordGap   = time.Second
)

// Defaults for Limits.
const (
	DefaultMaxTurns    = 40
	DefaultTimeout     = 2 * time.Hour
	DefaultTurnTimeout = 15 * time.Minute
)

// Limits bound a run: its turns, its time and its spending.
type Limits struct {
	MaxTurns    int
	Timeout     time.Duration // the whole run
	TurnTimeout time.Duration // one generation
	// Price is what the model's tokens cost (nil: no price set, and the
	// cost is unknown, never zero); recorded, so resume keeps it unless
	// given again.
	Price *budget.Price
	// Budget caps what the session may spend; a request that would pass
	// it is not sent and the run ends budget_exhausted. Resume adds it to
	// the session's (a top-up).
	Budget budget.Budget
}

// withDefaults fills the zero values.
func (l Limits) withDefaults() Limits {
	if l.MaxTurns == 0 {
		l.MaxTurns = DefaultMaxTurns
	}
	if l.Timeout == 0 {
		l.Timeout = DefaultTimeout
	}
	if l.TurnTimeout == 0 {
		l.TurnTimeout = DefaultTurnTimeout
	}
	return l
}

// checkTurns refuses a negative turn limit.
func (l Limits) checkTurns() error {
	if l.MaxTurns < 0 {
		return optionError("max-turns", "must be positive, got %d", l.MaxTurns)
	}
	return nil
}

// checkSpend refuses a negative budget or price.
func (l Limits) checkSpend() error {
	switch {
	case l.Budget.USD < 0:
		return optionError("budget-usd", "must be a positive amount of dollars, got %g", l.Budget.USD)
	case l.Budget.Tokens < 0:
		return optionError("budget-tokens", "must be a positive number of tokens, got %d", l.Budget.Tokens)
	case l.Price != nil && (l.Price.InputPerMtok < 0 || l.Price.OutputPerMtok < 0):
		return optionError("price-input-per-mtok", "prices must not be negative")
	}
	return nil
}

// outcome is how one instruction's turns ended: idle when the model
// called done (interrupted when a person stopped the turn instead), or the
// run's end.
type outcome struct {
	status      state.Status
	kind        state.FailureKind
	err         error
	interrupted bool
	// end, on an idle outcome, ends the run at once: the person at the
	// terminal declined landing.
	end bool
}

// drive runs the instruction and the messages that follow it: each time
// the model calls done the work lands and the run goes idle, waiting for
// the next message until its idle timeout; then it ends.
func (s *run) drive(ctx context.Context, instruction string, fresh bool) (*Report, error) {
	if err := s.prepare(ctx); err != nil {
		return s.end(state.Failed, state.FailConfiguration, err), nil
	}
	if !s.rec.AllowWorkflowChanges {
		// The tools refuse the actions the start commit's workflows use
		// even after a workflow stops naming them.
		guard, err := s.guardAt(ctx, s.rec.StartCommit)
		if err != nil {
			return s.end(state.Failed, state.FailInfrastructure, err), nil
		}
		s.env.Guard = guard
	}
	entries, err := transcript.Read(s.tr.Name())
	if err != nil {
		return s.end(state.Failed, state.FailInfrastructure, err), nil
	}
	// The build warms, and the baselines of the checks known now run,
	// while the model works, in the background: neither delays the
	// model's commands.
	s.startWarm(ctx)
	defer s.stopWarm()
	s.checks = contract.NewChecker(s.opts.Services.Sandbox, s.rec.Verify, s.opts.Verification.ShellTimeout, s.opts.Verification.BuildCeiling, s.git.run, s.rec.Workspace, s.rec.StartCommit)
	s.checks.Background(ctx, s.rec.Checks)
	s.offerFindings()
	defer s.checks.Close()
	if fresh || len(entries) == 0 {
		prompt, err := s.systemPrompt(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return s.end(state.Cancelled, "", s.cancelReason(ctx)), nil
			}
			return s.end(state.Failed, state.FailInfrastructure, err), nil
		}
		sys := budget.Entry{Role: model.RoleSystem, Content: prompt, Kind: budget.KindSystem}
		if err := s.append(&entries, sys); err != nil {
			return s.end(state.Failed, state.FailInfrastructure, err), nil
		}
	}
	if err := s.moveTo(state.Active); err != nil {
		return s.end(state.Failed, state.FailError, err), nil
	}
	if !s.opts.Inference.Think {
		instruction = strings.TrimRight(instruction, "\n") + "\n\n" + protocol.NoThink
	}
	if err := s.append(&entries, budget.Entry{Role: model.RoleUser, Content: instruction, Kind: budget.KindInstruction}); err != nil {
		return s.end(state.Failed, state.FailInfrastructure, err), nil
	}
	for {
		landed := s.rec.Commit
		out := s.turns(ctx, &entries)
		if (out.status == state.Idle && !out.interrupted) || out.status == state.BudgetExhausted {
			out = s.finish(ctx, out)
		}
		if out.status != state.Idle {
			return s.end(out.status, out.kind, out.err), nil
		}
		if err := s.moveTo(state.Idle); err != nil {
			return s.end(state.Failed, state.FailError, err), nil
		}
		if s.rec.Landed && s.rec.Commit != landed && !out.end {
			s.showLanding()
		}
		if out.end || !s.idle(ctx) {
			return s.endIdle(ctx), nil
		}
		if err := s.moveTo(state.Active); err != nil {
			return s.end(state.Failed, state.FailError, err), nil
		}
		// done froze the box (tree.go): the next command starts a new
		// one, and the browser starts again on first use.
		if err := s.reopen(ctx); err != nil {
			return s.end(state.Failed, state.FailConfiguration, err), nil
		}
		if _, err := s.readMessages(&entries); err != nil {
			return s.end(state.Failed, state.FailInfrastructure, err), nil
		}
	}
}

// turns drives the model until it calls done, a limit is hit, or something
// fails. The limits apply afresh to each instruction.
func (s *run) turns(ctx context.Context, entries *[]budget.Entry) outcome {
	runCtx, cancel := context.WithTimeout(ctx, s.opts.Limits.Timeout)
	defer cancel()
	malformed := 0
	names := s.tools.Callable()
	saved := time.Now()
	for turn := 1; ; turn++ {
		if turn > s.opts.Limits.MaxTurns {
			return outcome{status: state.Partial, err: fmt.Errorf("reached the limit of %d turns (--max-turns)", s.opts.Limits.MaxTurns)}
		}
		if runCtx.Err() != nil {
			return s.stopped(ctx, runCtx, nil)
		}
		if s.opts.Live.Poll != nil {
			s.opts.Live.Poll(runCtx)
		}
		if _, err := s.readMessages(entries); err != nil {
			return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}
		}
		out, ok := s.turn(ctx, runCtx, entries, names, &malformed)
		if ok {
			return out
		}
		if s.rec.Turns%recordEvery == 0 && time.Since(saved) >= recordGap {
			// The transcript has every turn; the record catches up now and
			// then, so that list shows a running session's progress.
			if err := s.opts.Services.Store.saveQuick(s.rec, s.scrubber); err != nil {
				return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}
			}
			saved = time.Now()
		}
	}
}

// turn is one turn: a request to the model and the action it asks for.
// It reports true with the outcome when the turns end here. A person's
// interrupt cancels the turn's context: the work stays and the run goes
// idle.
func (s *run) turn(ctx, runCtx context.Context, entries *[]budget.Entry, names []string, malformed *int) (outcome, bool) {
	turnCtx, done := s.ctl.StartTurn(runCtx)
	defer done()
	t := &turnRun{ctx: ctx, runCtx: runCtx, turnCtx: turnCtx}
	s.warmEnded(false)
	t.started = s.opts.Services.Now()
	t.hb = heartbeat.Start(s.opts.Live.Progress, s.opts.Live.Heartbeat, s.opts.Services.Now, fmt.Sprintf("turn %d/%d  waiting for the model", s.report.Turns+1, s.opts.Limits.MaxTurns))
	entry, out, end := s.askModel(t, entries)
	if end {
		return out, true
	}
	action, perr := parseReply(entry, names)
	if perr != nil {
		t.hb.End()
		*malformed++
		t.step.Tool, t.step.Malformed = "(malformed)", true
		t.step.Duration = s.opts.Services.Now().Sub(t.started)
		s.step(t.step)
		if *malformed >= maxMalformed {
			return outcome{status: state.Failed, kind: state.FailStalled, err: errors.New("consecutive malformed replies, giving up")}, true
		}
		if err := s.appendAll(entries, answers(entry, budget.KindCorrection, protocol.Correction(perr), s.rec.Turns)); err != nil {
			return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}, true
		}
		return s.interruptedTurn(t)
	}
	*malformed = 0
	return s.act(t, entries, entry, action)
}

// turnRun is one turn's state across its steps: asking the model (askModel),
// then running the action it chose and taking in the result (act).
type turnRun struct {
	ctx, runCtx, turnCtx context.Context
	started              time.Time
	hb                   *heartbeat.Beat
	step                 Step
}

// interruptedTurn ends the turn when someone interrupted it (and neither
// the session nor the run is over).
func (s *run) interruptedTurn(t *turnRun) (outcome, bool) {
	if by, ok := s.ctl.Interrupted(t.turnCtx); ok && t.ctx.Err() == nil && t.runCtx.Err() == nil {
		return s.interruptedBy(by), true
	}
	return outcome{}, false
}

// askModel sends the window to the model, within the budget, accounts for the
// reply and appends it; end is set when the turn ends here (the budget,
// no reply, the record).
func (s *run) askModel(t *turnRun, entries *[]budget.Entry) (entry budget.Entry, out outcome, end bool) {
	msgs := s.window.Build(*entries)
	est := s.window.LastEstimate() + s.toolsEstimate()
	if berr := s.overBudget(est); berr != nil {
		t.hb.End()
		return budget.Entry{}, outcome{status: state.BudgetExhausted, err: berr}, true
	}
	began := s.opts.Services.Now()
	reply, err := s.complete(t.turnCtx, msgs)
	// The model's text is scrubbed as it arrives: no tool, file,
	// command, prompt or commit ever sees a secret it wrote.
	reply.Content = s.scrub(reply.Content)
	s.rec.Turns++
	s.report.Turns++
	counted := s.spent(reply, est)
	t.step = Step{Turn: s.rec.Turns, Tokens: counted.TotalTokens}
	s.requestEvent(reply, err, began)
	var me *model.Error
	if err != nil && !(errors.As(err, &me) && me.Kind == model.KindEmpty) {
		t.hb.End()
		t.step.Tool = "(no reply)"
		t.step.Duration = s.opts.Services.Now().Sub(t.started)
		s.step(t.step)
		if out, ok := s.interruptedTurn(t); ok {
			return budget.Entry{}, out, true
		}
		return budget.Entry{}, s.modelFailure(t.ctx, t.runCtx, err), true
	}
	entry = s.replyEntry(reply)
	if err := s.append(entries, entry); err != nil {
		t.hb.End()
		return budget.Entry{}, outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}, true
	}
	return entry, outcome{}, false
}

// act runs the action the model chose and takes in its result: the
// step, a verification command's check, the observation the model reads
// next, or the end of the turns at done.
func (s *run) act(t *turnRun, entries *[]budget.Entry, entry budget.Entry, action protocol.Action) (outcome, bool) {
	scrubArgs(action.Args, s.scrub)
	// A command may take long: say at once what runs, and let its
	// output feed the heartbeat and the event log.
	t.hb.Relabel(heartbeat.ActionLabel(s.rec.Turns, s.opts.Limits.MaxTurns, action.Tool, action.Args), action.Tool == "run_shell")
	output := s.events.Output(s.rec.Turns)
	s.env.Progress = heartbeat.Output{Writer: io.MultiWriter(t.hb, output), Beat: t.hb}
	began := s.opts.Services.Now()
	res, err := s.tools.Run(t.turnCtx, s.env, tools.Call{Tool: action.Tool, Args: action.Args})
	s.toolEvent(action.Tool, res.Target, res.Failed, err, began)
	s.env.Progress = nil
	output.Flush()
	t.hb.End()
	s.warmEnded(false)
	t.step.Tool, t.step.Target = action.Tool, res.Target
	t.step.Duration = s.opts.Services.Now().Sub(t.started)
	s.step(t.step)
	if res.Note != "" {
		fmt.Fprintln(s.opts.Live.Progress, s.scrub(res.Note))
	}
	if by, ok := s.ctl.Interrupted(t.turnCtx); ok && t.ctx.Err() == nil && t.runCtx.Err() == nil {
		// Every call is answered, so the next request is one the server
		// accepts; the model hears what happened.
		note := fmt.Sprintf("Interrupted by %s: %s was stopped. Wait for the next message.", by, action.Tool)
		if err := s.appendAll(entries, answers(entry, budget.KindObservation, note, s.rec.Turns)); err != nil {
			return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}, true
		}
		return s.interruptedBy(by), true
	}
	if err != nil {
		if t.runCtx.Err() != nil {
			return s.stopped(t.ctx, t.runCtx, err), true
		}
		return outcome{status: state.Failed, kind: state.FailInfrastructure, err: fmt.Errorf("%s: %w", action.Tool, err)}, true
	}
	if v := res.Verification; v != nil {
		s.ownRuns = s.ownRuns.Add(*v)
		// The contract holds the result to what the model checked
		// with; the exit code it saw proves nothing about the end.
		if c, ok := contract.ModelCheck(v, s.rec.Verify); ok {
			s.rec.Checks = contract.AddCheck(s.rec.Checks, c)
			s.checks.Start(c.Command) // its baseline, now, beside the turns
			if err := s.opts.Services.Store.saveQuick(s.rec, s.scrubber); err != nil {
				return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}, true
			}
		}
	}
	obs := "Result of " + action.Tool + ":\n" + res.Output
	if action.Skipped > 0 {
		obs += "\n\n" + protocol.SkippedNote(action)
	}
	if res.Done {
		s.rec.Summary = res.Summary
		s.noteOwnRun(res.Summary)
		if len(entry.ToolCalls) > 0 {
			// Every native call is answered, so a resumed transcript is
			// one the server accepts.
			if err := s.appendAll(entries, answers(entry, budget.KindObservation, obs, s.rec.Turns)); err != nil {
				return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}, true
			}
		}
		return outcome{status: state.Idle}, true
	}
	if err := s.appendAll(entries, answers(entry, budget.KindObservation, obs, s.rec.Turns)); err != nil {
		return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}, true
	}
	return outcome{}, false
}

// complete sends the request the context window built and asks the model
// for the next reply within the turn timeout.
func (s *run) complete(ctx context.Context, msgs []model.Message) (model.Reply, error) {
	turnCtx, cancel := context.WithTimeout(ctx, s.opts.Limits.TurnTimeout)
	defer cancel()
	s.window.Sent()
	s.report.Context = s.window.Stats()
	c := s.client()
	if tc, ok := c.(ToolCompleter); ok && s.native() {
		return tc.CompleteTools(turnCtx, msgs, nativeTools(s.tools))
	}
	return c.Complete(turnCtx, msgs)
}

// modelFailure classifies a failed call to the model.
func (s *run) modelFailure(ctx, runCtx context.Context, err error) outcome {
	if ctx.Err() != nil || runCtx.Err() != nil {
		return s.stopped(ctx, runCtx, err)
	}
	var me *model.Error
	if errors.As(err, &me) {
		switch {
		case me.Kind == model.KindCanceled && me.Attempts <= 1:
			return outcome{status: state.Partial, err: fmt.Errorf("a turn ran past its %s limit (--turn-timeout): %w", s.opts.Limits.TurnTimeout, err)}
		case me.Status == 401 || me.Status == 403:
			return outcome{status: state.Failed, kind: state.FailAuthRequired, err: err}
		case me.Status == 404:
			return outcome{status: state.Failed, kind: state.FailConfiguration, err: err}
		}
	}
	return outcome{status: state.Failed, kind: state.FailInfrastructure, err: err}
}

// stopped says why the run stopped early: the user cancelled, or the
// run's wall-clock limit came.
func (s *run) stopped(ctx, runCtx context.Context, cause error) outcome {
	if ctx.Err() != nil {
		return outcome{status: state.Cancelled, err: s.cancelReason(ctx)}
	}
	err := fmt.Errorf("reached the run's time limit of %s (--timeout)", s.opts.Limits.Timeout)
	if cause != nil {
		err = fmt.Errorf("%w: %v", err, cause)
	}
	return outcome{status: state.Partial, err: err}
}

// append adds an entry to the transcript on disk and to the list in memory.
func (s *run) append(entries *[]budget.Entry, e budget.Entry) error {
	e.Time = s.opts.Services.Now()
	e.Content = s.scrub(e.Content)
	if len(e.ToolCalls) > 0 {
		calls := make([]model.ToolCall, len(e.ToolCalls))
		for i, c := range e.ToolCalls {
			c.Arguments = s.scrub(c.Arguments)
			calls[i] = c
		}
		e.ToolCalls = calls
	}
	if err := s.tr.Append(e); err != nil {
		return err
	}
	*entries = append(*entries, e)
	return nil
}

// appendAll appends entries in order.
func (s *run) appendAll(entries *[]budget.Entry, es []budget.Entry) error {
	for _, e := range es {
		if err := s.append(entries, e); err != nil {
			return err
		}
	}
	return nil
}

// step records a turn and prints its progress line.
func (s *run) step(st Step) {
	st.Target = s.scrub(st.Target)
	s.report.Steps = append(s.report.Steps, st)
	s.spentOn(st)
	if s.opts.Live.OnStep != nil {
		s.opts.Live.OnStep(st, s.opts.Limits.MaxTurns)
	}
	tokens, cost := s.spentSoFar()
	s.events.Add(live.Event{Kind: live.EventTurn, Turn: st.Turn, Tool: st.Tool, Target: st.Target, Progress: live.Progress{Tokens: tokens, CostUSD: cost}})
	target := st.Target
	if target != "" {
		target = " " + clip.Line(target, 60)
	}
	fmt.Fprintf(s.opts.Live.Progress, "turn %d/%d  %s%s  %s  %d tokens\n",
		s.report.Turns, s.opts.Limits.MaxTurns, st.Tool, target, st.Duration.Round(time.Millisecond), st.Tokens)
}

// ask prints a question and reads one line of answer.
func (s *run) ask(question string) (string, bool) {
	if s.opts.Services.Input == nil {
		return "", false
	}
	fmt.Fprint(s.opts.Services.Output, question)
	line, ok := <-s.lines()
	return line, ok
}

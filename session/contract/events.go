package contract

import (
	"time"

	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/tools"
)

// Events are the contract's checks as a run's events: each run of a
// check's command (on the start commit, then on the result) a command
// event, then the check with its verdict and how long its run on the
// result took. backend names where a command ran, confined or not. A nil
// contract has none.
func (c *Contract) Events(backend func(sandboxed bool) string) []live.Event {
	if c == nil {
		return nil
	}
	var out []live.Event
	for _, ch := range c.Checks {
		out = append(out, runEvent(ch, ch.Baseline, "on the start commit", backend), runEvent(ch, ch.Result, "on the result", backend),
			live.Event{Kind: live.EventCheck, Step: live.Step{Check: ch.String(), Verdict: string(ch.Verdict), DurationMS: live.Took(seconds(ch.Result.Seconds))}})
	}
	return out
}

// runEvent is one run of a check's command.
func runEvent(ch CheckRun, r CheckResult, where string, backend func(bool) string) live.Event {
	return CommandEvent(ch.String(), r, where, backend)
}

// CommandEvent is one run of a command the contract's way (Confinement.Run)
// as a command event: target as the tools show it, what as its text.
func CommandEvent(target string, r CheckResult, what string, backend func(bool) string) live.Event {
	e := live.Event{Kind: live.EventCommand, Target: target, Text: what, Step: live.Step{DurationMS: live.Took(seconds(r.Seconds))}}
	switch {
	case r.Error != "":
		e.Text += ": " + r.Error
	case r.TimedOut:
		e.Limit, e.Backend = "time", backend(r.Sandboxed)
	default:
		exit := r.Exit
		e.Exit, e.Backend = &exit, backend(r.Sandboxed)
	}
	return e
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// TellingTo is c with each command its Run runs told to log as a command
// event (CommandEvent), what saying what for, backend where it ran.
func (c Confinement) TellingTo(log *live.EventLog, what string, backend func(sandboxed bool) string) Confinement {
	c.Tell = func(argv []string, r CheckResult) { log.Add(CommandEvent(tools.CommandText(argv), r, what, backend)) }
	return c
}

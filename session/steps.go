package session

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
)

// The run's finished steps as events (live.EventRequest, EventTool,
// EventCommand, EventCheck, EventLand): what OpenTelemetry's listener
// makes spans of and watch prints a line each. They carry figures and
// names, never a prompt, code or a file's content; like every event they
// are a view, and a lost one never fails the run.

// since is the step's duration from began, for its event.
func (s *run) since(began time.Time) int64 {
	return live.Took(s.opts.Services.Now().Sub(began))
}

// requestEvent tells of one request to the model: its tokens as the
// server reported them (core's estimate when it reported none), its cost
// as the run counted it, how often the client sent it again, and on
// failure why.
func (s *run) requestEvent(reply model.Reply, err error, began time.Time) {
	e := live.Event{Kind: live.EventRequest, Turn: s.rec.Turns, Step: live.Step{DurationMS: s.since(began)}}
	e.Model = reply.Model
	if e.Model == "" {
		e.Model = s.rec.Model
	}
	e.InputTokens, e.OutputTokens = reply.Usage.PromptTokens, reply.Usage.CompletionTokens
	e.Retries = max(reply.Attempts-1, 0)
	if n := len(s.report.Spend); n > 0 && s.report.Spend[n-1].Turn == s.rec.Turns && s.report.Spend[n-1].CostUSD != nil {
		c := *s.report.Spend[n-1].CostUSD
		e.RequestCostUSD = &c
	}
	if err != nil {
		e.Text = err.Error()
		var me *model.Error
		if errors.As(err, &me) {
			e.Retries = max(me.Attempts-1, 0)
		}
	}
	s.events.Add(e)
}

// toolEvent tells of one tool call once it ran: its target as the turn's
// event shows it, and why it failed, was refused or declined.
func (s *run) toolEvent(tool, target, failed string, err error, began time.Time) {
	if err != nil {
		failed = err.Error()
	}
	s.events.Add(live.Event{Kind: live.EventTool, Turn: s.rec.Turns, Tool: tool, Target: target, Text: failed, Step: live.Step{DurationMS: s.since(began)}})
}

// backend names where a command ran (tools.Backend); the probe ran
// before it did, and its answer is kept.
func (s *run) backend(sandboxed bool) string {
	return tools.Backend(context.Background(), s.opts.Services.Sandbox, sandboxed)
}

// checkEvents tells of the contract's checks (Contract.Events).
func (s *run) checkEvents(c *contract.Contract) {
	for _, e := range c.Events(s.backend) {
		s.events.Add(e)
	}
}

// landEvent tells where the work landed, or why it did not.
func (s *run) landEvent(out outcome, landed bool, began time.Time) {
	e := live.Event{Kind: live.EventLand, Step: live.Step{DurationMS: s.since(began)}}
	switch {
	case landed:
		e.Target = landedAt(s.rec)
	case out.err != nil:
		e.Text = out.err.Error()
	case out.end:
		e.Text = "the person at the terminal declined landing; the work stays in the workspace"
	default:
		e.Text = "not landed"
	}
	s.events.Add(e)
}

// landedAt is where a session's work landed: its branch and pull request,
// else its branch and commit.
func landedAt(rec *Record) string {
	if rec.PRURL != "" {
		return strings.TrimSpace(rec.Branch + " " + rec.PRURL)
	}
	return strings.TrimSpace(rec.Branch + " " + rec.Commit)
}

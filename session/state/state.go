// Package state is where a session is in its life: its Status, the moves
// its state machine allows between them (Status.Next), and, for a run that
// failed, the FailureKind that says why. The record, the event log and the
// live run's control all speak it.
package state

import (
	"encoding/json"
	"fmt"
)

// Status is where a session is in its life.
type Status string

// The states: pending → starting → active ⇄ idle → completed; or partial,
// failed or cancelled. Resume takes a session that has ended back to
// starting. DESIGN.md's "The session" is the plan.
const (
	Pending   Status = "pending"   // queued for capacity
	Starting  Status = "starting"  // clone, sandbox, model check
	Active    Status = "active"    // the model is working
	Idle      Status = "idle"      // landed, waiting for the next message
	Completed Status = "completed" // ended cleanly
	Partial   Status = "partial"   // a limit was hit; the work is kept
	Failed    Status = "failed"    // see FailureKind
	Cancelled Status = "cancelled" // stopped by the user
	// BudgetExhausted: the next request would have passed the run's
	// budget (--budget-usd, --budget-tokens), so it was never sent; the
	// work landed as a draft. Not a failure: resume with a top-up goes on.
	BudgetExhausted Status = "budget_exhausted"
)

// legacyStatus maps the names records written before the run's life had
// idle and completed used: running was a process driving the session (the
// model working), done its clean end.
var legacyStatus = map[Status]Status{"running": Active, "done": Completed}

// UnmarshalJSON reads a status, old names included.
func (s *Status) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return fmt.Errorf("a session status is a string: %w", err)
	}
	*s = Status(name)
	if now, ok := legacyStatus[*s]; ok {
		*s = now
	}
	return nil
}

// Terminal reports whether the session has ended.
func (s Status) Terminal() bool {
	switch s {
	case Completed, Partial, Failed, Cancelled, BudgetExhausted:
		return true
	}
	return false
}

// Live reports whether a process drives the session: starting, active or
// idle. A live status on disk with no process holding the lock is an
// orphan (Store.Load).
func (s Status) Live() bool {
	switch s {
	case Starting, Active, Idle:
		return true
	}
	return false
}

// Word is the one word every entry point shows for a state (the
// terminal, serve, the bot's comment, the Action and the console): a
// live run is queued, starting, working or idle; an ended state is its
// own name.
func (s Status) Word() string {
	switch s {
	case Pending:
		return "queued"
	case Active:
		return "working"
	}
	return string(s)
}

// Succeeded reports whether the run ended the way a person asked: the
// model called done and its work landed (or there was none), and the run
// completed or was still idle when its caller stopped waiting.
func (s Status) Succeeded() bool { return s == Completed || s == Idle }

// Next lists the states a session in state s may move to.
func (s Status) Next() []Status {
	switch s {
	case Pending:
		return []Status{Starting, Failed, Cancelled}
	case Starting:
		return []Status{Active, Failed, Cancelled}
	case Active:
		return []Status{Idle, Partial, Failed, Cancelled, BudgetExhausted}
	case Idle:
		// partial: an interrupt left work that never landed.
		return []Status{Active, Completed, Partial, Failed, Cancelled}
	case Completed, Partial, Failed, Cancelled, BudgetExhausted:
		return []Status{Starting} // resume (after budget_exhausted: a top-up)
	}
	return nil
}

// FailureKind says, for machines, why a session failed.
type FailureKind string

// The failure kinds.
const (
	FailConfiguration  FailureKind = "configuration"  // bad options, no model server, bad repository
	FailAuthRequired   FailureKind = "auth_required"  // a credential is missing or refused
	FailInfrastructure FailureKind = "infrastructure" // the model endpoint, git, the disk, a dead process
	FailStalled        FailureKind = "stalled"        // the model kept replying with no valid action
	FailError          FailureKind = "error"          // anything else
)

// A budget that would be passed is not a failure: see BudgetExhausted.

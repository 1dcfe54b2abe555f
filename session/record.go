// Package session is core's engine: the durable session record and its state
// machine, the turn loop that drives the model through the tool set, the
// limits, persistence under $CORE_HOME/sessions/<id>/, and the run report.
//
// Every entry point (the CLI, the Action, the bot, serve) builds Options and
// calls Run or Resume; nothing about GitHub events reaches this package.
package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
)

// Usage counts the tokens a session spent.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// add adds m, each sum saturating (model.SaturatingAdd).
func (u *Usage) add(m model.Usage) {
	u.PromptTokens = model.SaturatingAdd(u.PromptTokens, m.PromptTokens)
	u.CompletionTokens = model.SaturatingAdd(u.CompletionTokens, m.CompletionTokens)
	u.TotalTokens = model.SaturatingAdd(u.TotalTokens, m.TotalTokens)
}

// Record is the durable state of a session: session.json. Its fields are
// grouped by concern in embedded structs, which marshal flat: the file's
// shape is one object, as it always was.
type Record struct {
	ID string `json:"id"`
	RecordTask
	RecordLife
	RecordSetup
	RecordSpend
	RecordOutcome
	RecordTimes
	// ReportPending is set when the report could not be delivered to the
	// console; core session sync sends it again.
	ReportPending bool `json:"report_pending,omitempty"`

	// AllowWorkflowChanges lets the session land changes under
	// .github/workflows (--allow-workflow-changes); resume keeps it.
	AllowWorkflowChanges bool `json:"allow_workflow_changes,omitempty"`

	// Browser is the browser the session's last run had (--browser and
	// its options); nil for none. core session resume gives it again
	// unless told otherwise.
	Browser *BrowserRecord `json:"browser,omitempty"`
}

// RecordTask is what a session was asked to do and where: the repository,
// the commit it started from, the branch it lands on, the issue or pull
// request, the prompt.
type RecordTask struct {
	Repo        string `json:"repo"`
	Base        string `json:"base"`
	StartCommit string `json:"start_commit"`
	Branch      string `json:"branch"`
	Issue       int    `json:"issue,omitempty"`
	PullRequest int    `json:"pull_request,omitempty"`
	// LandOnto, for a session that started from the user's uncommitted
	// work (StartCommit is then a snapshot of it, kept under
	// refs/core/inputs/<id>), is the commit that work sat on; Uncommitted
	// counts its changed paths.
	LandOnto    string `json:"land_onto,omitempty"`
	Uncommitted int    `json:"uncommitted,omitempty"`
	Prompt      string `json:"prompt,omitempty"`
	Goal        string `json:"goal,omitempty"` // the report's: see Report.Goal
	// Kind is "review" for a review run (Goal.Review); empty otherwise.
	Kind string `json:"kind,omitempty"`
}

// RecordLife is where the session is in its life (see session/state) and
// how many turns it took.
type RecordLife struct {
	Status      state.Status      `json:"status"`
	FailureKind state.FailureKind `json:"failure_kind,omitempty"`
	Error       string            `json:"error,omitempty"`
	Turns       int               `json:"turns"`
}

// RecordSetup is how the session's runs are set up: the model and how it
// is spoken to, the tier, the sandbox, the checks its contract holds.
type RecordSetup struct {
	Model        string    `json:"model"`
	InferenceURL string    `json:"inference_url,omitempty"`
	Verify       lang.Tier `json:"verify"`
	// ToolCalls is how actions travel (text or native), auto resolved at
	// the start; resume keeps it.
	ToolCalls string `json:"tool_calls,omitempty"`
	// Instructions are the repository instruction files the system prompt
	// carries (AGENTS.md and the like).
	Instructions []string `json:"instructions,omitempty"`
	Sandboxed    bool     `json:"sandboxed"`
	// Checks are what the session's contract holds its result to: the
	// user's, then the verification commands the model ran.
	Checks []contract.Check `json:"checks"`
}

// RecordSpend is what the session spent and may spend.
type RecordSpend struct {
	Usage Usage `json:"usage"`
	// Price is what the session's tokens cost (nil: no price set); Budget
	// the caps on its spend, topped up by resume; CostUSD what its turns
	// cost so far, every run included (nil while no price is known).
	Price   *budget.Price  `json:"price,omitempty"`
	Budget  *budget.Budget `json:"budget,omitempty"`
	CostUSD *float64       `json:"cost_usd,omitempty"`
}

// RecordOutcome is where the work is and what became of it.
type RecordOutcome struct {
	Workspace string `json:"workspace"`
	Summary   string `json:"summary,omitempty"`
	Commit    string `json:"commit,omitempty"`
	PRURL     string `json:"pr_url,omitempty"`
	Landed    bool   `json:"landed"`
}

// RecordTimes is when the session was created, last moved and ended.
type RecordTimes struct {
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
}

// BrowserRecord is what a session keeps of its browser options: not
// --headed, which is for the terminal a person sits at now, nor the
// environment setup gave the browser.
type BrowserRecord struct {
	// Exec is the binary the run used, as setup found it.
	Exec        string        `json:"exec"`
	Timeout     time.Duration `json:"timeout_ns,omitempty"`
	AllowRemote bool          `json:"allow_remote,omitempty"`
}

// browserRecord is what a run with b keeps of it; nil without a browser.
func browserRecord(b BrowserOptions) *BrowserRecord {
	if !b.On {
		return nil
	}
	return &BrowserRecord{Exec: b.Exec, Timeout: b.Timeout, AllowRemote: b.AllowRemote}
}

// transition moves the record to status to, or returns an error when the
// state machine does not allow it: an illegal transition is a bug.
func (r *Record) transition(to state.Status, now time.Time) error {
	if !slices.Contains(r.Status.Next(), to) {
		return fmt.Errorf("session %s: illegal transition %s → %s", r.ID, r.Status, to)
	}
	r.Status = to
	r.UpdatedAt = now
	if to.Terminal() {
		r.EndedAt = &now
	} else {
		r.EndedAt = nil
		r.FailureKind, r.Error = "", ""
	}
	return nil
}

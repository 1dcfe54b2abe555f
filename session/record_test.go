package session

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

// TestRecordJSONShape: session.json is one flat object whose keys come in
// the order they always did, however Record groups its fields, and it
// reads back to the same record.
func TestRecordJSONShape(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 1, 2, 3, 0, time.UTC)
	cost := 0.25
	rec := &Record{ID: "20261205-010203-abcdef",
		RecordTask: RecordTask{Repo: "acme/app", Base: "main", StartCommit: "abc", Branch: "core-session/x", Issue: 7, PullRequest: 8,
			LandOnto: "def", Uncommitted: 2, Prompt: "fix it", Goal: "fix it"},
		RecordLife:    RecordLife{Status: state.Failed, FailureKind: state.FailStalled, Error: "stuck", Turns: 3},
		RecordSetup:   RecordSetup{Model: "m", InferenceURL: "http://x", Verify: "build", ToolCalls: "text", Instructions: []string{"AGENTS.md"}, Sandboxed: true, Checks: []contract.Check{}},
		RecordSpend:   RecordSpend{Usage: Usage{TotalTokens: 9}, Price: &budget.Price{}, Budget: &budget.Budget{}, CostUSD: &cost},
		RecordOutcome: RecordOutcome{Workspace: "/w", Summary: "done", Commit: "123", PRURL: "https://x/pull/8", Landed: true},
		RecordTimes:   RecordTimes{CreatedAt: now, UpdatedAt: now, EndedAt: &now},
		ReportPending: true, AllowWorkflowChanges: true, Browser: &BrowserRecord{Exec: "chromium"},
	}
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	keys := jsonKeys(t, b)
	assert.Equal(t, strings.Fields(`id repo base start_commit branch issue pull_request land_onto uncommitted prompt goal
		status failure_kind error turns model inference_url verify tool_calls instructions sandboxed checks
		usage price budget cost_usd workspace summary commit pr_url landed created_at updated_at ended_at
		report_pending allow_workflow_changes browser`), keys)
	var back Record
	require.NoError(t, json.Unmarshal(b, &back))
	again, err := json.Marshal(&back)
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(again))
	assert.Equal(t, string(b), string(again))
}

// TestReportJSONShape: report.json is one flat object whose keys come in
// the order they always did, however Report groups its fields, and it
// reads back to the same report.
func TestReportJSONShape(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 1, 2, 3, 0, time.UTC)
	cost := 0.25
	rep := &Report{
		ID:                 "20261205-010203-abcdef",
		Repo:               "acme/app",
		Warmup:             &WarmupReport{Seconds: 1},
		DiffStat:           &DiffStat{Files: 1},
		Files:              []string{"browser/console.log"},
		ReportOutcome:      ReportOutcome{Status: state.Partial, FailureKind: state.FailStalled, Error: "stuck", Summary: "done"},
		ReportLanding:      ReportLanding{Base: "main", StartCommit: "abc", Branch: "core-session/x", Commit: "123", PRURL: "https://x/pull/8", PullRequest: 8, Landed: true, DryRun: true, CheckRun: "https://x/runs/9", Signature: "verified (signed by GitHub for the App)", RunURL: "https://x/actions/runs/9/job/1"},
		ReportSpend:        ReportSpend{Turns: 3, TotalTurns: 5, Usage: Usage{TotalTokens: 9}, CostUSD: &cost, Price: &budget.Price{}, Budget: &budget.BudgetReport{}, Spend: []budget.TurnSpend{{Turn: 1}}, SpendByTool: []budget.ToolSpend{{Tool: "done"}}, Context: budget.ContextStats{Budget: 1}},
		ReportVerification: ReportVerification{Verify: "build", Sandboxed: true, Languages: &Languages{Found: []string{"go"}}, Contract: &contract.Contract{Verdict: contract.ContractHeld}, Tree: "t1", StartTree: "t0", LandedTree: "t1", Unverified: true, Receipt: &ReportReceipt{File: ReceiptFile, Hash: "sha256:x"}},
		ReportRun:          ReportRun{Findings: []Finding{{Kind: FindingNoChange}}, Steps: []Step{{Turn: 1, Tool: "done"}}, Instructions: []string{"AGENTS.md"}, StartedAt: now, EndedAt: now},
		ReportGoal:         ReportGoal{Goal: "fix it", Issue: 7},
	}
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	keys := jsonKeys(t, b)
	assert.Equal(t, strings.Fields(`id repo status failure_kind error summary base start_commit branch commit pr_url
		pull_request landed dry_run check_run signature run_url turns total_turns usage cost_usd price budget spend spend_by_tool context
		verify sandboxed languages contract tree start_tree landed_tree unverified receipt findings steps instructions
		started_at ended_at warmup goal issue diff_stat files`), keys)
	var back Report
	require.NoError(t, json.Unmarshal(b, &back))
	again, err := json.Marshal(&back)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again))
}

// jsonKeys is the keys of the JSON object b, in their order.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	_, err := dec.Token() // {
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/state"
)

// A price of $1000 per million tokens: a token costs a tenth of a cent, so
// the figures below are round.
var testPrice = &budget.Price{InputPerMtok: 1000, OutputPerMtok: 1000, Source: budget.PriceFromSettings}

// TestBudgetStopsBeforeTheRequest: the scripted model reports 2000+100
// tokens ($2.10) for the first reply and 3000+100 ($3.10) for the second.
// With --budget-usd 10, the third request (about 3000 prompt tokens plus
// the 4096-token allowance: $7+) would pass the budget after $5.20 spent,
// so the server never receives it; the work lands as a draft marked
// [budget exhausted] and the session ends budget_exhausted. Resume with a
// $10 top-up sends it and finishes.
func TestBudgetStopsBeforeTheRequest(t *testing.T) {
	t.Parallel()
	f := newAppFixture(t)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: \"hello, world\\n\"").WithUsage(2000, 100),
		llm.ContentReply("tool: read_file\npath: hello.txt").WithUsage(3000, 100),
		llm.ContentReply("tool: done\nsummary: Greet the world").WithUsage(3100, 50),
	)
	opts := f.options(t, srv)
	opts.Goal.Prompt = "greet the world"
	opts.Limits.Price, opts.Limits.Budget = testPrice, budget.Budget{USD: 10}
	var progress strings.Builder
	opts.Live.Progress = &progress
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)

	require.Equal(t, state.BudgetExhausted, rep.Status, rep.Error)
	assert.Empty(t, rep.FailureKind, "a budget is not a failure")
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the request that would pass the budget is never sent")
	assert.Equal(t, 1, srv.Remaining())
	for _, r := range reqs {
		assert.Equal(t, budget.CompletionAllowance, r.MaxTokens, "each reply is bounded by the allowance the check counted")
	}
	assert.Contains(t, rep.Error, "the budget of $10.0000 (--budget-usd) would be passed: $5.2000 spent")
	require.NotNil(t, rep.CostUSD)
	assert.InDelta(t, 5.2, *rep.CostUSD, 1e-9)
	assert.Equal(t, testPrice, rep.Price)
	require.NotNil(t, rep.Budget)
	assert.True(t, rep.Budget.Exhausted)
	assert.InDelta(t, 10, rep.Budget.USD, 1e-9)
	require.NotNil(t, rep.Budget.SpentUSD)
	assert.InDelta(t, 5.2, *rep.Budget.SpentUSD, 1e-9)
	assert.LessOrEqual(t, *rep.Budget.SpentUSD, rep.Budget.USD, "never past the cap")
	require.NotNil(t, rep.Budget.NextUSD)
	assert.Greater(t, *rep.Budget.SpentUSD+*rep.Budget.NextUSD, rep.Budget.USD)
	assert.Equal(t, 5200, rep.Budget.SpentTokens)
	require.Len(t, rep.Spend, 2)
	assert.Equal(t, []string{"write_file"}, rep.Spend[0].Tools)
	assert.Equal(t, 3000, rep.Spend[1].PromptTokens)
	assert.InDelta(t, 3.1, *rep.Spend[1].CostUSD, 1e-9)
	require.Len(t, rep.SpendByTool, 2)
	assert.Equal(t, "read_file", rep.SpendByTool[0].Tool, "most expensive first")
	assert.Contains(t, progress.String(), "budget exhausted: the budget of $10.0000")

	// Landed as a draft marked with the reason.
	assert.True(t, rep.Landed)
	pulls := f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	assert.True(t, pulls[0].Draft)
	assert.Equal(t, land.BudgetTitlePrefix+"greet the world", pulls[0].Title)
	assert.Contains(t, pulls[0].Body, "**[budget exhausted]** The run stopped before its next request: $5.2000 of $10.0000 (--budget-usd)")
	assert.Contains(t, pulls[0].Body, "- cost: $5.2000")
	requireCheckRun(t, f.g, "octo/hello", rep, "neutral", "Budget exhausted: the work is unfinished and unchecked")

	var sum strings.Builder
	rep.WriteSummary(&sum)
	assert.Contains(t, sum.String(), "session "+rep.ID+": budget_exhausted\n")
	assert.Contains(t, sum.String(), "cost: $5.2000 at $1000 in, $1000 out per Mtok (settings)\n")
	assert.Contains(t, sum.String(), "budget: $5.2000 of $10.0000 (--budget-usd); exhausted: the next request (about ")

	onDisk := readReport(t, opts, rep.ID)
	assert.Equal(t, "budget_exhausted", onDisk["status"])
	assert.InDelta(t, 5.2, onDisk["cost_usd"], 1e-9)
	assert.Equal(t, true, onDisk["budget"].(map[string]any)["exhausted"])

	// A top-up: resume goes on where the budget stopped it.
	progress.Reset()
	opts.Limits.Budget = budget.Budget{USD: 10}
	opts.Limits.Price = nil // the record keeps it
	rep, err = Resume(t.Context(), rep.ID, "go on", opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Len(t, srv.Requests(), 3)
	assert.Contains(t, progress.String(), "budget topped up: $5.2000 of $20.0000 (--budget-usd)")
	require.NotNil(t, rep.CostUSD)
	assert.InDelta(t, 3.15, *rep.CostUSD, 1e-9, "this run's cost")
	assert.InDelta(t, 8.35, *rep.Budget.SpentUSD, 1e-9, "the session's")
	assert.False(t, rep.Budget.Exhausted)
	pulls = f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	assert.Equal(t, "Greet the world", pulls[0].Title, "no longer marked")
	assert.True(t, pulls[0].Draft)
}

// TestBudgetTokens: a token budget too small for even the first request
// (its estimate plus the completion allowance) sends nothing, lands
// nothing, and needs no price.
func TestBudgetTokens(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: x"))
	opts := testOptions(t, srv, repo)
	opts.Limits.Budget = budget.Budget{Tokens: budget.CompletionAllowance}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.BudgetExhausted, rep.Status)
	assert.Empty(t, srv.Requests())
	assert.False(t, rep.Landed)
	assert.Contains(t, rep.Error, "the budget of 4096 tokens (--budget-tokens) would be passed: 0 spent")
	assert.Nil(t, rep.CostUSD, "no price: unknown, not zero")
	var sum strings.Builder
	rep.WriteSummary(&sum)
	assert.Contains(t, sum.String(), "cost: no price set\n")
	assert.Contains(t, sum.String(), "budget: 0 of 4096 tokens (--budget-tokens); exhausted")
}

func TestNoPriceIsUnknown(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: x").WithUsage(2000, 50))
	opts := testOptions(t, srv, repo)
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Nil(t, rep.CostUSD)
	assert.Nil(t, rep.Price)
	assert.Nil(t, rep.Budget)
	assert.Zero(t, srv.Requests()[0].MaxTokens, "no budget: the server's own limit")
	onDisk := readReport(t, opts, rep.ID)
	assert.NotContains(t, onDisk, "cost_usd", "unknown is absent, never 0")
	require.Len(t, rep.Spend, 1)
	assert.Nil(t, rep.Spend[0].CostUSD)
	assert.Equal(t, 2000, rep.Spend[0].PromptTokens)
}

func TestBudgetOptionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		price  *budget.Price
		budget budget.Budget
		want   string
	}{
		{name: "dollars without a price", budget: budget.Budget{USD: 1}, want: "budget-usd: a budget in dollars needs a price"},
		{name: "negative dollars", price: testPrice, budget: budget.Budget{USD: -1}, want: "budget-usd: must be a positive amount"},
		{name: "negative tokens", budget: budget.Budget{Tokens: -1}, want: "budget-tokens: must be a positive number"},
		{name: "negative price", price: &budget.Price{InputPerMtok: -1}, want: "prices must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llm.NewModelServer(t)
			opts := testOptions(t, srv, testkit.GitRepo(t, map[string]string{"README": "hi\n"}))
			opts.Limits.Price, opts.Limits.Budget = tt.price, tt.budget
			_, err := Run(t.Context(), opts)
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), tt.want)
			recs, err := opts.Services.Store.List()
			require.NoError(t, err)
			assert.Empty(t, recs, "a refused run leaves no session")
		})
	}
}

func readReport(t *testing.T, opts Options, id string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(opts.Services.Store.Dir(id), "report.json"))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

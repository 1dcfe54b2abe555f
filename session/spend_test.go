package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
// With --budget-usd 7, the third request (about 3000 prompt tokens and a
// reply of at least budget.ReplyFloor: $4+) would pass the budget after
// $5.20 spent, so the server never receives it; the work lands as a draft
// marked [budget exhausted] and the session ends budget_exhausted. Resume
// with the top-up the error names ($7 more) sends it and finishes.
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
	opts.Limits.Price, opts.Limits.Budget = testPrice, budget.Budget{USD: 7}
	var progress strings.Builder
	opts.Live.Progress = &progress
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)

	require.Equal(t, state.BudgetExhausted, rep.Status, rep.Error)
	assert.Empty(t, rep.FailureKind, "a budget is not a failure")
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the request that would pass the budget is never sent")
	assert.Equal(t, 1, srv.Remaining())
	assert.Equal(t, budget.CompletionAllowance, reqs[0].MaxTokens, "the allowance while the budget has room for it")
	// $4.90 left and a prompt of at least the 2000 tokens the first
	// counted: at most 2900 tokens of reply.
	assert.GreaterOrEqual(t, reqs[1].MaxTokens, budget.ReplyFloor)
	assert.LessOrEqual(t, reqs[1].MaxTokens, 2900, "what the budget leaves")
	assert.Contains(t, rep.Error, "the budget of $7.0000 (--budget-usd) would be passed: $5.2000 spent")
	assert.Contains(t, rep.Error, "(its prompt and a reply of at least 1024 tokens); core session resume "+rep.ID+` "carry on where you stopped" --budget-usd 7 tops it up and continues`)
	require.NotNil(t, rep.CostUSD)
	assert.InDelta(t, 5.2, *rep.CostUSD, 1e-9)
	assert.Equal(t, testPrice, rep.Price)
	require.NotNil(t, rep.Budget)
	assert.True(t, rep.Budget.Exhausted)
	assert.InDelta(t, 7, rep.Budget.USD, 1e-9)
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
	assert.Contains(t, progress.String(), "budget exhausted: the budget of $7.0000")

	// Landed as a draft marked with the reason.
	assert.True(t, rep.Landed)
	pulls := f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	assert.True(t, pulls[0].Draft)
	assert.Equal(t, land.BudgetTitlePrefix+"greet the world", pulls[0].Title)
	assert.Contains(t, pulls[0].Body, "**[budget exhausted]** The run stopped before its next request: $5.2000 of $7.0000 (--budget-usd)")
	assert.Contains(t, pulls[0].Body, "; `core session resume "+rep.ID+` "carry on where you stopped" --budget-usd 7`+"` tops the budget up and continues it.")
	assert.Contains(t, pulls[0].Body, "- cost: $5.2000")
	requireCheckRun(t, f.g, "octo/hello", rep, "neutral", "Budget exhausted: the work is unfinished and unchecked")

	var sum strings.Builder
	rep.WriteSummary(&sum)
	assert.Contains(t, sum.String(), "session "+rep.ID+": budget_exhausted\n")
	assert.Contains(t, sum.String(), "cost: $5.2000 at $1000 in, $1000 out per Mtok (settings)\n")
	assert.Contains(t, sum.String(), "budget: $5.2000 of $7.0000 (--budget-usd); exhausted: the next request (about ")

	onDisk := readReport(t, opts, rep.ID)
	assert.Equal(t, "budget_exhausted", onDisk["status"])
	assert.InDelta(t, 5.2, onDisk["cost_usd"], 1e-9)
	assert.Equal(t, true, onDisk["budget"].(map[string]any)["exhausted"])

	// A top-up: resume goes on where the budget stopped it.
	progress.Reset()
	opts.Limits.Budget = budget.Budget{USD: 7}
	opts.Limits.Price = nil // the record keeps it
	rep, err = Resume(t.Context(), rep.ID, "go on", opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Len(t, srv.Requests(), 3)
	assert.Contains(t, progress.String(), "budget topped up: now $14.0000 (--budget-usd, $7.0000 more), $5.2000 spent\n")
	assert.NotContains(t, progress.String(), "exhausted", "a top-up says what the budget now is")
	require.NotNil(t, rep.CostUSD)
	assert.InDelta(t, 3.15, *rep.CostUSD, 1e-9, "this run's cost")
	assert.InDelta(t, 8.35, *rep.Budget.SpentUSD, 1e-9, "the session's")
	assert.False(t, rep.Budget.Exhausted)
	pulls = f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	assert.Equal(t, "Greet the world", pulls[0].Title, "no longer marked")
	assert.True(t, pulls[0].Draft)
}

// TestBudgetIsSpentToItsEnd: the run TestBudgetStopsBeforeTheRequest
// makes, with --budget-usd 10. The third request used to be refused (its
// prompt and a reserve of the whole 4096-token allowance, $7+, passed the
// $4.80 left); now it asks for the reply the budget leaves (max_tokens
// below the allowance, at least the floor), is sent, and the run
// completes within the budget.
func TestBudgetIsSpentToItsEnd(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: \"hello, world\\n\"").WithUsage(2000, 100),
		llm.ContentReply("tool: read_file\npath: hello.txt").WithUsage(3000, 100),
		llm.ContentReply("tool: done\nsummary: Greet the world").WithUsage(3100, 50),
	)
	opts := testOptions(t, srv, repo)
	opts.Limits.Price, opts.Limits.Budget = testPrice, budget.Budget{USD: 10}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "the budget's last $4.80 pays for a third turn")
	assert.Equal(t, budget.CompletionAllowance, reqs[0].MaxTokens)
	assert.Equal(t, budget.CompletionAllowance, reqs[1].MaxTokens)
	// $4.80 left, and a prompt of at least the 3000 tokens the last one
	// counted ($3): at most 1800 tokens of reply.
	assert.GreaterOrEqual(t, reqs[2].MaxTokens, budget.ReplyFloor)
	assert.LessOrEqual(t, reqs[2].MaxTokens, 1800, "the reply is bounded by what the budget leaves")
	require.NotNil(t, rep.CostUSD)
	assert.InDelta(t, 8.35, *rep.CostUSD, 1e-9)
	assert.False(t, rep.Budget.Exhausted)
}

// TestBudgetTooSmallForTheFirstRequest: a budget that cannot fit the
// system prompt, the goal and a reply of the floor is refused before the
// session exists (no record, no clone, no request), naming the smallest
// budget that can. That figure is a lower bound: given it, a repository
// whose AGENTS.md makes the first request larger still ends
// budget_exhausted at the first request, sending nothing.
func TestBudgetTooSmallForTheFirstRequest(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n", "AGENTS.md": strings.Repeat("Write tests first. ", 1000)})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: x"))
	opts := testOptions(t, srv, repo)
	opts.Limits.Budget = budget.Budget{Tokens: 2000}
	_, err := Run(t.Context(), opts)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "budget-tokens", ce.Option)
	m := regexp.MustCompile(`^budget-tokens: 2000 cannot fit the first request \(at least ([0-9]+) tokens: the system prompt, the goal and a reply of at least 1024, and more for what the repository holds: its AGENTS.md, its languages\); give at least ([0-9]+)$`).FindStringSubmatch(err.Error())
	require.NotNil(t, m, err.Error())
	assert.Equal(t, m[1], m[2])
	least, err := strconv.Atoi(m[2])
	require.NoError(t, err)
	assert.Greater(t, least, 2000)
	entries, err := os.ReadDir(filepath.Dir(opts.Services.Store.Dir("x")))
	if !os.IsNotExist(err) {
		require.NoError(t, err)
		assert.Empty(t, entries, "no session directory, no workspace")
	}
	assert.Empty(t, srv.Requests())

	opts.Limits.Budget = budget.Budget{Tokens: least}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err, "the figure named is not refused")
	assert.Equal(t, state.BudgetExhausted, rep.Status, "the AGENTS.md makes the request larger")
	assert.Empty(t, srv.Requests())
	assert.False(t, rep.Landed)
	assert.Contains(t, rep.Error, fmt.Sprintf("the budget of %d tokens (--budget-tokens) would be passed: 0 spent", least))
	assert.Nil(t, rep.CostUSD, "no price: unknown, not zero")
	var sum strings.Builder
	rep.WriteSummary(&sum)
	assert.Contains(t, sum.String(), "cost: no price set\n")
	assert.Contains(t, sum.String(), fmt.Sprintf("budget: 0 of %d tokens (--budget-tokens); exhausted", least))

	// Without an AGENTS.md, at the verify tier off (whose rule the
	// languages do not change), the figure is exact: the first request
	// goes, asking for a reply of the floor.
	repo = testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	opts = testOptions(t, srv, repo)
	opts.Limits.Budget = budget.Budget{Tokens: 100}
	_, err = Run(t.Context(), opts)
	require.Error(t, err)
	m = regexp.MustCompile(`give at least ([0-9]+)$`).FindStringSubmatch(err.Error())
	require.NotNil(t, m, err.Error())
	exact, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	opts.Limits.Budget = budget.Budget{Tokens: exact}
	rep, err = Run(t.Context(), opts)
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 1, "%s: %s", rep.Status, rep.Error)
	assert.Equal(t, budget.ReplyFloor, srv.Requests()[0].MaxTokens)

	// Native tool calls: the tools' definitions go with the request, and
	// count.
	opts.Inference.ToolCalls = ToolCallsNative
	opts.Limits.Budget = budget.Budget{Tokens: exact}
	_, err = Run(t.Context(), opts)
	require.Error(t, err, "the tools' definitions make the request larger")
	m = regexp.MustCompile(`give at least ([0-9]+)$`).FindStringSubmatch(err.Error())
	require.NotNil(t, m, err.Error())
	native, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	assert.Greater(t, native, exact+1000, "a few thousand bytes of definitions")
	assert.Len(t, srv.Requests(), 1, "nothing sent")
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

package session

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/state"
)

// TestBudgetHoldsAgainstTheServersUsage: a model server that reports
// negative, huge or tiny usage keeps asking to read a file. Each request
// counts at least core's own estimate of it (about 1500 tokens here), so
// a budget of 20000 tokens stops the run, budget_exhausted, within 20000
// over the first request's count, and what it spent never passes the
// budget nor goes below zero. On the old code the negative and MaxInt64
// figures drove the total below zero and the tiny ones kept it near it
// (the run went on through every scripted reply), and 1e18 counted past
// the budget at once.
func TestBudgetHoldsAgainstTheServersUsage(t *testing.T) {
	t.Parallel()
	const capTokens, replies = 20_000, 40
	tests := []struct {
		name               string
		prompt, completion int
		price              bool
	}{
		{name: "negative", prompt: -1_000_000_000, completion: -1},
		{name: "negative, priced", prompt: -1_000_000_000, completion: -1_000_000_000, price: true},
		{name: "MaxInt64", prompt: math.MaxInt, completion: math.MaxInt},
		{name: "1e18", prompt: 1e18, completion: 1e18},
		{name: "tiny", prompt: 1, completion: 1},
		{name: "tiny, priced", prompt: 0, completion: 1, price: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
			script := make([]llm.Reply, replies, replies+1)
			for i := range script {
				script[i] = llm.ContentReply("tool: read_file\npath: README").WithUsage(tt.prompt, tt.completion)
			}
			// A run the budget does not stop ends here, completed.
			script = append(script, llm.ContentReply("tool: done\nsummary: read it").WithUsage(tt.prompt, tt.completion))
			srv := llm.NewModelServer(t, script...)
			opts := testOptions(t, srv, repo)
			opts.Limits.MaxTurns = replies + 10
			opts.Limits.Budget = budget.Budget{Tokens: capTokens}
			if tt.price {
				// $1000 per Mtok: the budget in dollars is the same 20000 tokens.
				opts.Limits.Price, opts.Limits.Budget = testPrice, budget.Budget{USD: capTokens * 1000 / 1e6}
			}
			var progress strings.Builder
			opts.Live.Progress = &progress
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)

			require.Equal(t, state.BudgetExhausted, rep.Status, "the budget stops the run: %s", rep.Error)
			require.NotEmpty(t, rep.Spend)
			first := rep.Spend[0].PromptTokens + rep.Spend[0].CompletionTokens
			assert.Greater(t, first, 1000, "the first request counts at least core's estimate of it")
			n := len(srv.Requests())
			assert.LessOrEqual(t, n, capTokens/first, "the requests sent fit the budget at their counted size")
			assert.GreaterOrEqual(t, n, 2, "a lie does not end the run at once either")
			require.NotNil(t, rep.Budget)
			assert.GreaterOrEqual(t, rep.Usage.TotalTokens, 0)
			assert.LessOrEqual(t, rep.Usage.TotalTokens, capTokens, "never past the budget")
			assert.LessOrEqual(t, rep.Budget.SpentTokens, capTokens, "never past the budget")
			if tt.price {
				require.NotNil(t, rep.CostUSD)
				assert.GreaterOrEqual(t, *rep.CostUSD, 0.0)
				assert.LessOrEqual(t, *rep.CostUSD, opts.Limits.Budget.USD)
			}
			if tt.prompt < 0 || tt.prompt > 1e9 {
				assert.Equal(t, 1, strings.Count(progress.String(), "usage refused: the model server reported"), "said once a run")
			}
		})
	}
}

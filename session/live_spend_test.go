package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// TestEventsCarryTheGoalAndTheSpend: whoever follows a run (watch, the
// console's page) knows its goal from its first event, and its tokens and
// cost as each turn ends; a priced run's cost is known, as 0, from the
// start, and grows to what the report says.
func TestEventsCarryTheGoalAndTheSpend(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
	)
	opts := testOptions(t, srv, repo)
	opts.Limits.Price = &budget.Price{InputPerMtok: 3, OutputPerMtok: 15}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	require.NotNil(t, rep.CostUSD)

	var evs []live.Event
	require.NoError(t, opts.Services.Store.Watch(t.Context(), rep.ID, func(e live.Event) error {
		evs = append(evs, e)
		return nil
	}))
	require.NotEmpty(t, evs)
	first := evs[0]
	assert.Equal(t, live.EventState, first.Kind)
	assert.Equal(t, "do the thing", first.Goal, "the goal from the first event")
	require.NotNil(t, first.CostUSD, "the price is known at the start")
	assert.Zero(t, *first.CostUSD)

	var turns []live.Event
	for _, e := range evs {
		if e.Kind == live.EventTurn {
			turns = append(turns, e)
		}
	}
	require.Len(t, turns, 2)
	for i, e := range turns {
		require.NotNil(t, e.CostUSD, "turn %d", e.Turn)
		assert.Positive(t, e.Tokens, "turn %d", e.Turn)
		if i > 0 {
			assert.Greater(t, e.Tokens, turns[i-1].Tokens, "the tokens so far grow")
			assert.Greater(t, *e.CostUSD, *turns[i-1].CostUSD, "and so does the cost")
		}
	}
	last := turns[len(turns)-1]
	assert.Equal(t, rep.Usage.TotalTokens, last.Tokens, "the last turn's count is the report's")
	assert.InDelta(t, *rep.CostUSD, *last.CostUSD, 1e-12)
}

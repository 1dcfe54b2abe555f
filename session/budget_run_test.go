package session

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
)

// TestSessionHoldsTheBudget runs a session at the smallest budgets with
// large files and a long instruction, and checks every request the model
// server recorded.
func TestSessionHoldsTheBudget(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1024, 4096, 8192} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for i := range 6 {
				files[fmt.Sprintf("big%d.go", i)] = strings.Repeat(fmt.Sprintf("// line of big file %d, long enough to matter <&>\n", i), 400) // 20 KB
			}
			repo := testkit.GitRepo(t, files)
			var replies []llm.Reply
			for turn := range 30 {
				replies = append(replies, llm.ContentReply(fmt.Sprintf("tool: read_file\npath: big%d.go\nstart_line: %d", turn%6, 1+turn*7)))
			}
			replies = append(replies, llm.ContentReply("tool: done\nsummary: read"))
			srv := llm.NewModelServer(t, replies...)
			opts := testOptions(t, srv, repo)
			opts.Landing.DryRun = true
			opts.Limits.MaxTurns = len(replies)
			opts.Inference.ContextTokens = limit
			opts.Goal.Prompt = strings.Repeat("Read the big files and tell me what they hold. ", 40) // ~1,900 bytes
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)

			reqs := srv.Requests()
			require.Len(t, reqs, len(replies))
			system := reqs[0].Messages[0]
			require.Equal(t, model.RoleSystem, system.Role)
			largest := 0
			changed := 0
			var shares []float64
			for i, req := range reqs {
				msgs := fromWire(req.Messages)
				est := budget.RequestEstimate(msgs)
				largest = max(largest, est)
				assert.LessOrEqual(t, est, limit, "request %d", i)
				if limit < 4096 {
					// The system prompt alone is over the budget: it is
					// cut, once, the same way in every request.
					assert.Contains(t, system.Content, "bytes cut here to fit the context budget")
				}
				assert.Equal(t, system, req.Messages[0], "request %d keeps the system prompt", i)
				if limit >= 4096 {
					assert.True(t, strings.HasPrefix(req.Messages[1].Content, strings.TrimSpace(opts.Goal.Prompt)), "request %d keeps the instruction", i)
				}
				last := msgs[len(msgs)-1].Content
				if i > 0 {
					assert.True(t, strings.HasPrefix(last, "Result of read_file:\n"), "request %d ends with the latest result", i)
					assert.LessOrEqual(t, len(last), len("Result of read_file:\n")+budget.ObservationLimit(limit), "request %d: the result is capped", i)
					prev := fromWire(reqs[i-1].Messages)
					if len(msgs) < len(prev) || !slices.EqualFunc(prev, msgs[:len(prev)], budget.SameMessage) {
						changed++
					}
					sizes := make([]int, len(msgs))
					for j, m := range msgs {
						sizes[j] = budget.WireSize(m.Role, m.Content)
					}
					shares = append(shares, budget.PrefixShare(prev, msgs, sizes))
				}
			}
			c := rep.Context
			assert.Equal(t, limit, c.Budget)
			assert.Equal(t, len(reqs), c.Requests)
			assert.Equal(t, largest, c.LargestRequestEstimated, "the engine's estimate is the wire's")
			assert.Positive(t, changed, "at these budgets the session must elide")
			assert.LessOrEqual(t, changed, c.BlockElisions, "a request that does not begin with the one before is a block elision")
			slices.Sort(shares)
			assert.InDelta(t, (shares[(len(shares)-1)/2]+shares[len(shares)/2])/2, c.PrefixReuseMedian, 1e-9)

			saved, err := opts.Services.Store.LoadReport(rep.ID)
			require.NoError(t, err)
			assert.Equal(t, c, saved.Context, "report.json holds the context figures")
			var out bytes.Buffer
			rep.WriteSummary(&out)
			assert.Contains(t, out.String(), fmt.Sprintf("context: %d requests, %d tokens sent (estimated), largest %d of the %d budget, prefix reuse median %.2f\n",
				c.Requests, c.SentTokensEstimated, c.LargestRequestEstimated, limit, c.PrefixReuseMedian))
		})
	}
}

func fromWire(msgs []openai.ChatCompletionMessage) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		out[i] = model.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

package budget

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/model"
)

// A token costs a tenth of a cent at $1000 per Mtok, so the figures are round.
var roundPrice = &Price{InputPerMtok: 1000, OutputPerMtok: 1000, Source: PriceFromSettings}

func usd(v float64) *float64 { return &v }

func TestReplyTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		b      Budget
		p      *Price
		spent  Spent
		prompt int
		want   int
	}{
		{name: "a roomy budget asks for the whole allowance", b: Budget{Tokens: 100_000}, prompt: 3000, want: CompletionAllowance},
		{name: "what the token budget leaves", b: Budget{Tokens: 10_000}, spent: Spent{Tokens: 5200}, prompt: 3000, want: 1800},
		{name: "nothing left is below zero", b: Budget{Tokens: 5000}, spent: Spent{Tokens: 5200}, prompt: 3000, want: -3200},
		{name: "what the dollar budget leaves, to the token", b: Budget{USD: 10}, p: roundPrice, spent: Spent{USD: usd(5.25)}, prompt: 3000, want: 1750},
		{name: "dollars overspent", b: Budget{USD: 7}, p: roundPrice, spent: Spent{USD: usd(5.2)}, prompt: 3000, want: -1},
		{name: "the smaller of the two caps", b: Budget{Tokens: 9000, USD: 10}, p: roundPrice, spent: Spent{Tokens: 5200, USD: usd(5.2)}, prompt: 3000, want: 800},
		{name: "a free reply is bounded by the allowance", b: Budget{USD: 10}, p: &Price{InputPerMtok: 1000}, spent: Spent{USD: usd(5.2)}, prompt: 3000, want: CompletionAllowance},
		{name: "no price: dollars are not counted", b: Budget{USD: 1}, prompt: 3000, want: CompletionAllowance},
		{name: "a huge spend saturates", b: Budget{Tokens: 10_000}, spent: Spent{Tokens: math.MaxInt}, prompt: math.MaxInt, want: 10_000 - math.MaxInt},
		{name: "a negative spend counts as none", b: Budget{Tokens: 5000}, spent: Spent{Tokens: -1_000_000}, prompt: 3000, want: 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ReplyTokens(tt.b, tt.p, tt.spent, tt.prompt)
			assert.Equal(t, tt.want, got)
			if tt.b.USD > 0 && tt.b.Tokens == 0 && tt.p != nil && got > 0 && got < CompletionAllowance {
				assert.LessOrEqual(t, *tt.spent.USD+tt.p.Cost(tt.prompt, got), tt.b.USD, "a reply of max_tokens never passes the cap")
				assert.Greater(t, *tt.spent.USD+tt.p.Cost(tt.prompt, got+1), tt.b.USD, "nor leaves a token unused")
			}
		})
	}
}

func TestFirstFit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		b          Budget
		p          *Price
		wantOption string
		want       string // empty: it fits
	}{
		{name: "tokens that fit", b: Budget{Tokens: 5000 + ReplyFloor}},
		{name: "tokens one short",
			b:          Budget{Tokens: 5000 + ReplyFloor - 1},
			wantOption: "budget-tokens",
			want:       "6023 cannot fit the first request (at least 6024 tokens: the system prompt, the goal and a reply of at least 1024, and more for what the repository holds: its AGENTS.md, its languages); give at least 6024"},
		{name: "dollars that fit", b: Budget{USD: 6.024}, p: roundPrice},
		{name: "dollars short, rounded up to what fits",
			b:          Budget{USD: 0.001},
			p:          &Price{InputPerMtok: 0.15, OutputPerMtok: 0.6, Source: PriceFromSettings},
			wantOption: "budget-usd",
			want:       "0.001 cannot fit the first request (at least 6024 tokens, $0.0014 at $0.15 in, $0.6 out per Mtok (settings): the system prompt, the goal and a reply of at least 1024, and more for what the repository holds: its AGENTS.md, its languages); give at least 0.0014"},
		{name: "tokens are named first",
			b:          Budget{Tokens: 10, USD: 1},
			p:          roundPrice,
			wantOption: "budget-tokens",
			want:       "10 cannot fit the first request (at least 6024 tokens: the system prompt, the goal and a reply of at least 1024, and more for what the repository holds: its AGENTS.md, its languages); give at least 6024"},
		{name: "then dollars",
			b:          Budget{Tokens: 10_000, USD: 1},
			p:          roundPrice,
			wantOption: "budget-usd",
			want:       "1 cannot fit the first request (at least 6024 tokens, $6.0240 at $1000 in, $1000 out per Mtok (settings): the system prompt, the goal and a reply of at least 1024, and more for what the repository holds: its AGENTS.md, its languages); give at least 6.0240"},
		{name: "no budget fits anything"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			option, err := FirstFit(tt.b, tt.p, 5000, true)
			assert.Equal(t, tt.wantOption, option)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
	_, err := FirstFit(Budget{Tokens: 10}, nil, 5000, false)
	assert.EqualError(t, err, "10 cannot fit the first request (about 6024 tokens: the system prompt, the goal and a reply of at least 1024); give at least 6024")
}

// TestFirstFitNamesABudgetThatFits: the smallest budget the refusal names
// fits the same request, for prices whose figures round.
func TestFirstFitNamesABudgetThatFits(t *testing.T) {
	t.Parallel()
	for _, p := range []*Price{roundPrice, {InputPerMtok: 0.15, OutputPerMtok: 0.6}, {InputPerMtok: 3, OutputPerMtok: 15}, {InputPerMtok: 0.1, OutputPerMtok: 0.3}} {
		for _, prompt := range []int{0, 1, 2999, 5000, 77_777} {
			least := ceilFigure(p.Cost(prompt, ReplyFloor))
			assert.GreaterOrEqual(t, least, p.Cost(prompt, ReplyFloor))
			assert.Less(t, least-1e-4, p.Cost(prompt, ReplyFloor), "the smallest figure")
			_, err := FirstFit(Budget{USD: least}, p, prompt, false)
			assert.NoError(t, err, "%v, %d", p, prompt)
			_, err = FirstFit(Budget{USD: least - 1e-4}, p, prompt, false)
			assert.Error(t, err, "%v, %d", p, prompt)
			_, err = FirstFit(Budget{Tokens: prompt + ReplyFloor}, p, prompt, false)
			assert.NoError(t, err)
			_, err = FirstFit(Budget{Tokens: prompt + ReplyFloor - 1}, p, prompt, false)
			assert.Error(t, err)
		}
	}
}

func TestTopUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		b    *BudgetReport
		want string
	}{
		{name: "as much again as the cap in dollars",
			b:    &BudgetReport{USD: 7, SpentUSD: usd(5.2), SpentTokens: 5200, Exhausted: true, NextTokens: 4024, NextUSD: usd(4.024)},
			want: "--budget-usd 7"},
		{name: "what the request lacks, when more than the cap",
			b:    &BudgetReport{USD: 0.5, SpentUSD: usd(0.4), Exhausted: true, NextTokens: 4024, NextUSD: usd(4.024)},
			want: "--budget-usd 3.93"},
		{name: "tokens",
			b:    &BudgetReport{Tokens: 10_000, SpentTokens: 9000, Exhausted: true, NextTokens: 4024},
			want: "--budget-tokens 10000"},
		{name: "tokens the request lacks",
			b:    &BudgetReport{Tokens: 2000, SpentTokens: 1500, Exhausted: true, NextTokens: 6024},
			want: "--budget-tokens 5524"},
		{name: "only the cap the request passes",
			b:    &BudgetReport{Tokens: 100_000, USD: 7, SpentTokens: 5200, SpentUSD: usd(5.2), Exhausted: true, NextTokens: 4024, NextUSD: usd(4.024)},
			want: "--budget-usd 7"},
		{name: "none passed: every cap", b: &BudgetReport{Tokens: 100, USD: 1, SpentUSD: usd(0)}, want: "--budget-tokens 100 --budget-usd 1"},
		{name: "no budget", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.b.TopUp())
		})
	}
}

func TestResumeCommand(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `core session resume 20261130-101500-ab12 "carry on where you stopped" --budget-usd 7`, ResumeCommand("20261130-101500-ab12", "--budget-usd 7"))
	assert.Equal(t, `core session resume 20261130-101500-ab12 "carry on where you stopped"`, ResumeCommand("20261130-101500-ab12", ""))
}

func TestTopUpLine(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "now $20.0000 (--budget-usd, $10.0000 more), $5.2000 spent",
		TopUpLine(Budget{USD: 10}, Budget{USD: 20}, Spent{Tokens: 5200, USD: usd(5.2)}))
	assert.Equal(t, "now $20.0000 (--budget-usd), $5.2000 spent; now 15200 tokens (--budget-tokens, 10000 more), 5200 spent",
		TopUpLine(Budget{Tokens: 10_000}, Budget{USD: 20, Tokens: 15_200}, Spent{Tokens: 5200, USD: usd(5.2)}))
	assert.NotContains(t, TopUpLine(Budget{USD: 10}, Budget{USD: 20}, Spent{}), "exhausted")
}

// FuzzReplyTokens: whatever the budget, price, spend and prompt, the reply
// ReplyTokens leaves is at most the allowance, and a reply of that many
// tokens never passes a cap.
func FuzzReplyTokens(f *testing.F) {
	f.Add(10_000, 10.0, 1000.0, 1000.0, 5200, 5.2, 3000)
	f.Add(0, 0.5, 0.15, 0.6, 0, 0.0, 5000)
	f.Add(math.MaxInt, math.Inf(1), 0.0, math.Inf(1), -1, math.NaN(), math.MaxInt)
	f.Fuzz(func(t *testing.T, tokens int, budgetUSD, in, out float64, spentTokens int, spentUSD float64, prompt int) {
		if in < 0 || out < 0 || budgetUSD < 0 || tokens < 0 {
			return // refused by the options' checks before a run
		}
		b, p := Budget{Tokens: tokens, USD: budgetUSD}, &Price{InputPerMtok: in, OutputPerMtok: out}
		spent := Spent{Tokens: spentTokens, USD: &spentUSD}
		n := ReplyTokens(b, p, spent, prompt)
		if n > CompletionAllowance {
			t.Fatalf("max_tokens %d past the allowance", n)
		}
		if n <= 0 {
			return
		}
		if tokens > 0 && model.SaturatingAdd(model.SaturatingAdd(max(spentTokens, 0), max(prompt, 0)), n) > tokens {
			t.Fatalf("a reply of %d passes the budget of %d tokens", n, tokens)
		}
		if budgetUSD > 0 && spentUSD+p.Cost(max(prompt, 0), n) > budgetUSD {
			t.Fatalf("a reply of %d passes the budget of $%g", n, budgetUSD)
		}
	})
}

func TestToolsEstimate(t *testing.T) {
	t.Parallel()
	assert.Zero(t, ToolsEstimate(nil))
	one := model.Tool{Name: "read_file", Description: "Read a file.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
	n := ToolsEstimate([]model.Tool{one})
	assert.GreaterOrEqual(t, n, (len(one.Name)+len(one.Description)+len(one.Parameters))/bytesPerToken, "every byte of the definition counts")
	assert.Greater(t, ToolsEstimate([]model.Tool{one, one}), n)
}

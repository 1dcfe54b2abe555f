package budget

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/session/model"
)

func TestCountUsage(t *testing.T) {
	t.Parallel()
	ceiling := UsageCeiling{prompt: 10_000, completion: CompletionAllowance}
	own := model.Usage{PromptTokens: 1500, CompletionTokens: 20, TotalTokens: 1520}
	tests := []struct {
		name   string
		server model.Usage
		want   model.Usage
		wantOK bool
	}{
		{name: "an honest count above the estimate is the count",
			server: model.Usage{PromptTokens: 2000, CompletionTokens: 100, TotalTokens: 2100},
			want:   model.Usage{PromptTokens: 2000, CompletionTokens: 100, TotalTokens: 2100}, wantOK: true},
		{name: "a tiny count is raised to the estimate",
			server: model.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2},
			want:   own, wantOK: true},
		{name: "each figure is the larger of the two",
			server: model.Usage{PromptTokens: 3000, CompletionTokens: 1, TotalTokens: 3001},
			want:   model.Usage{PromptTokens: 3000, CompletionTokens: 20, TotalTokens: 3020}, wantOK: true},
		{name: "the server's total does not count, the sum does",
			server: model.Usage{PromptTokens: 2000, CompletionTokens: 100, TotalTokens: 0},
			want:   model.Usage{PromptTokens: 2000, CompletionTokens: 100, TotalTokens: 2100}, wantOK: true},
		{name: "at the ceiling is believed",
			server: model.Usage{PromptTokens: 10_000, CompletionTokens: CompletionAllowance, TotalTokens: 10_000 + CompletionAllowance},
			want:   model.Usage{PromptTokens: 10_000, CompletionTokens: CompletionAllowance, TotalTokens: 10_000 + CompletionAllowance}, wantOK: true},
		{name: "a negative prompt is refused",
			server: model.Usage{PromptTokens: -1_000_000_000, CompletionTokens: 100, TotalTokens: -999_999_900},
			want:   own},
		{name: "a negative total alone is refused",
			server: model.Usage{PromptTokens: 2000, CompletionTokens: 100, TotalTokens: -1},
			want:   own},
		{name: "a prompt past the ceiling is refused",
			server: model.Usage{PromptTokens: 10_001, CompletionTokens: 0, TotalTokens: 10_001},
			want:   own},
		{name: "a reply past max_tokens is refused",
			server: model.Usage{PromptTokens: 2000, CompletionTokens: CompletionAllowance + 1, TotalTokens: 2000 + CompletionAllowance + 1},
			want:   own},
		{name: "MaxInt64 is refused",
			server: model.Usage{PromptTokens: math.MaxInt, CompletionTokens: math.MaxInt, TotalTokens: -2},
			want:   own},
		{name: "1e18 is refused",
			server: model.Usage{PromptTokens: 1e18, CompletionTokens: 1e18, TotalTokens: 2e18},
			want:   own},
		{name: "MinInt is refused",
			server: model.Usage{PromptTokens: math.MinInt, CompletionTokens: math.MinInt, TotalTokens: 0},
			want:   own},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := CountUsage(tt.server, own, ceiling)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantOK, ok)
		})
	}
}

func TestRequestCeiling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		est       int
		maxTokens int
		want      UsageCeiling
	}{
		{name: "a byte a token plus the slack, max_tokens with a budget", est: 1000, maxTokens: CompletionAllowance,
			want: UsageCeiling{prompt: 3000 + promptSlack, completion: CompletionAllowance}},
		{name: "a lowered max_tokens is the reply's ceiling", est: 1000, maxTokens: ReplyFloor,
			want: UsageCeiling{prompt: 3000 + promptSlack, completion: ReplyFloor}},
		{name: "no budget: the reply ceiling", est: 1000,
			want: UsageCeiling{prompt: 3000 + promptSlack, completion: replyCeiling}},
		{name: "a negative estimate is none", est: -5,
			want: UsageCeiling{prompt: promptSlack, completion: replyCeiling}},
		{name: "a huge estimate saturates", est: math.MaxInt,
			want: UsageCeiling{prompt: math.MaxInt, completion: replyCeiling}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, RequestCeiling(tt.est, tt.maxTokens))
		})
	}
}

package budget

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/coreagent/core/session/model"
)

// What a run spends, in tokens and money, and the budgets that cap it. Not
// to be confused with the context budget (budget.go): that one bounds one
// request's size, this one what a whole session may cost.

// CompletionAllowance is the most completion tokens a request under a
// budget asks for (max_tokens): each asks for what the budget leaves, at
// most this and at least ReplyFloor (reply.go), so the check's estimate
// bounds what the reply can cost.
const CompletionAllowance = 4096

// Where a price came from.
const (
	PriceFromSettings = "settings" // --price-input-per-mtok, --price-output-per-mtok, price_per_mtok
	PriceFromEndpoint = "endpoint" // the model endpoint's /v1/models
)

// Price is what a million tokens cost, in US dollars.
type Price struct {
	InputPerMtok  float64 `json:"input_per_mtok"`
	OutputPerMtok float64 `json:"output_per_mtok"`
	// Source is PriceFromSettings or PriceFromEndpoint.
	Source string `json:"source"`
}

// Cost is what prompt and completion tokens cost at p.
func (p *Price) Cost(prompt, completion int) float64 {
	return float64(prompt)/1e6*p.InputPerMtok + float64(completion)/1e6*p.OutputPerMtok
}

// String says it for people: "$0.50 in, $1.50 out per Mtok (settings)".
func (p *Price) String() string {
	if p == nil {
		return "no price set"
	}
	return fmt.Sprintf("$%s in, $%s out per Mtok (%s)", trimFloat(p.InputPerMtok), trimFloat(p.OutputPerMtok), p.Source)
}

// Budget caps what a session may spend, every run of it included; a zero
// field is no cap. A request that would pass it is never sent.
type Budget struct {
	USD    float64 `json:"usd,omitempty"`
	Tokens int     `json:"tokens,omitempty"`
}

// Set reports whether any cap is set.
func (b Budget) Set() bool { return b.USD > 0 || b.Tokens > 0 }

// BudgetReport is the budget in report.json: the caps, what the session
// spent, and whether the budget stopped the run.
type BudgetReport struct {
	USD         float64  `json:"usd,omitempty"`
	Tokens      int      `json:"tokens,omitempty"`
	SpentUSD    *float64 `json:"spent_usd,omitempty"`
	SpentTokens int      `json:"spent_tokens"`
	// Exhausted is set when the next request would have passed the budget
	// and was not sent; NextTokens and NextUSD are its estimate (prompt
	// plus a reply of ReplyFloor).
	Exhausted  bool     `json:"exhausted"`
	NextTokens int      `json:"next_tokens,omitempty"`
	NextUSD    *float64 `json:"next_usd,omitempty"`
}

// Line says it for people: "$0.0120 of $0.0150 (--budget-usd), 3000 of
// 5000 tokens (--budget-tokens)".
func (b *BudgetReport) Line() string {
	if b == nil {
		return ""
	}
	var parts []string
	if b.USD > 0 {
		parts = append(parts, fmt.Sprintf("%s of $%.4f (--budget-usd)", CostText(b.SpentUSD), b.USD))
	}
	if b.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d tokens (--budget-tokens)", b.SpentTokens, b.Tokens))
	}
	line := strings.Join(parts, ", ")
	if b.Exhausted {
		next := fmt.Sprintf("about %d tokens", b.NextTokens)
		if b.NextUSD != nil {
			next += fmt.Sprintf(", %s", CostText(b.NextUSD))
		}
		line += fmt.Sprintf("; exhausted: the next request (%s) would have passed it and was not sent", next)
	}
	return line
}

// TurnSpend is what one turn's request cost, and the tool its reply called.
type TurnSpend struct {
	Turn             int      `json:"turn"`
	Tools            []string `json:"tools,omitempty"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
}

// ToolSpend is what the turns that called one tool cost, together.
type ToolSpend struct {
	Tool             string   `json:"tool"`
	Turns            int      `json:"turns"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
}

// CostText says a cost for people, the same way everywhere a run is shown:
// "$0.0123", or "no price set" when it is unknown (never $0).
func CostText(c *float64) string {
	if c == nil {
		return "no price set"
	}
	return "$" + CostFigure(c)
}

// CostFigure is the cost's number, four decimals ("0.0123"), or empty when
// it is unknown: the Action's cost output.
func CostFigure(c *float64) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%.4f", *c)
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.6f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" {
		return "0"
	}
	return s
}

func AddCost(c **float64, v float64) {
	if *c == nil {
		*c = new(float64)
	}
	**c += v
}

// ByTool totals the turns' spend by the tool each called, most expensive
// first (by cost when priced, else by tokens).
func ByTool(turns []TurnSpend) []ToolSpend {
	idx := map[string]int{}
	var out []ToolSpend
	for _, t := range turns {
		tool := strings.Join(t.Tools, "+")
		if tool == "" {
			tool = "(no reply)"
		}
		i, ok := idx[tool]
		if !ok {
			i = len(out)
			idx[tool] = i
			out = append(out, ToolSpend{Tool: tool})
		}
		ts := &out[i]
		ts.Turns++
		ts.PromptTokens = model.SaturatingAdd(ts.PromptTokens, t.PromptTokens)
		ts.CompletionTokens = model.SaturatingAdd(ts.CompletionTokens, t.CompletionTokens)
		if t.CostUSD != nil {
			AddCost(&ts.CostUSD, *t.CostUSD)
		}
	}
	slices.SortStableFunc(out, func(a, b ToolSpend) int {
		if a.CostUSD != nil && b.CostUSD != nil && *a.CostUSD != *b.CostUSD {
			return cmp.Compare(*b.CostUSD, *a.CostUSD)
		}
		return cmp.Compare(model.SaturatingAdd(b.PromptTokens, b.CompletionTokens), model.SaturatingAdd(a.PromptTokens, a.CompletionTokens))
	})
	return out
}

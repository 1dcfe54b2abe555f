package budget

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/coreagent/core/session/model"
)

// How much of a reply a budget reserves. Each request under a budget asks
// the server for at most what the budget leaves after what was spent and
// the request's prompt (max_tokens), never more than CompletionAllowance:
// the reserve is what the model may return, so a budget is spent to its
// end instead of stopping while a whole allowance is still unused.

// ReplyFloor is the fewest completion tokens a request under a budget asks
// for: a reply shorter than that is rarely a whole tool call, so a request
// the budget leaves less room is not sent and the run ends
// budget_exhausted.
const ReplyFloor = 1024

// Spent is what a session spent so far, against its budget.
type Spent struct {
	Tokens int
	// USD is nil when no price is set: a budget in dollars is then not
	// counted (a run with one needs a price).
	USD *float64
}

// ReplyTokens is the max_tokens of a request whose prompt takes about
// prompt tokens under budget b, at price p, after spent: what the budget
// leaves for the reply, at most CompletionAllowance. It may be below
// ReplyFloor, or below zero: then the request does not fit.
func ReplyTokens(b Budget, p *Price, spent Spent, prompt int) int {
	n := CompletionAllowance
	if b.Tokens > 0 {
		n = min(n, b.Tokens-model.SaturatingAdd(max(spent.Tokens, 0), max(prompt, 0)))
	}
	if b.USD > 0 && p != nil && spent.USD != nil {
		left := b.USD - *spent.USD - p.Cost(max(prompt, 0), 0)
		switch {
		case left < 0 || math.IsNaN(left):
			n = min(n, -1)
		case p.OutputPerMtok > 0:
			// Estimated, then settled by the same sum the budget check
			// makes, so rounding neither passes the cap nor leaves a
			// token of it unused.
			k := 0
			if f := math.Floor(left / p.OutputPerMtok * 1e6); f > 0 {
				k = int(min(f, CompletionAllowance))
			}
			fits := func(k int) bool { return *spent.USD+p.Cost(max(prompt, 0), k) <= b.USD }
			for k < CompletionAllowance && fits(k+1) {
				k++
			}
			for k > 0 && !fits(k) {
				k--
			}
			n = min(n, k)
		}
	}
	return n
}

// FirstFit says which cap of b cannot fit a first request of about prompt
// tokens with a reply of ReplyFloor, and what the smallest value is that
// can: option is the cap's option ("budget-tokens" or "budget-usd"), and
// err is nil when b fits. lower says the estimate leaves out what only the
// repository holds (its AGENTS.md, its languages), so the request may be
// larger.
func FirstFit(b Budget, p *Price, prompt int, lower bool) (option string, err error) {
	prompt = max(prompt, 0)
	about, least := "about", ""
	if lower {
		about, least = "at least", ", and more for what the repository holds: its AGENTS.md, its languages"
	}
	tokens := model.SaturatingAdd(prompt, ReplyFloor)
	what := fmt.Sprintf("the system prompt, the goal and a reply of at least %d%s", ReplyFloor, least)
	if b.Tokens > 0 && ReplyTokens(Budget{Tokens: b.Tokens}, nil, Spent{}, prompt) < ReplyFloor {
		return "budget-tokens", fmt.Errorf("%d cannot fit the first request (%s %d tokens: %s); give at least %d",
			b.Tokens, about, tokens, what, tokens)
	}
	if b.USD > 0 && p != nil && ReplyTokens(Budget{USD: b.USD}, p, Spent{USD: new(float64)}, prompt) < ReplyFloor {
		usd := ceilFigure(p.Cost(prompt, ReplyFloor))
		return "budget-usd", fmt.Errorf("%s cannot fit the first request (%s %d tokens, $%.4f at %s: %s); give at least %.4f",
			trimFloat(b.USD), about, tokens, usd, p, what, usd)
	}
	return "", nil
}

// ceilFigure is v rounded up to four decimals, as budgets are shown: the
// smallest such figure not below v, so a budget given as it fits.
func ceilFigure(v float64) float64 {
	f := math.Round(v*1e4) / 1e4
	if f < v {
		f = math.Round(v*1e4+1) / 1e4
	}
	return f
}

// ToolsEstimate is the estimate, in tokens, of the native tools'
// definitions a request carries besides its messages, which the window's
// estimate does not see: a token per bytesPerToken of their JSON.
func ToolsEstimate(tools []model.Tool) int {
	if len(tools) == 0 {
		return 0
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return 0
	}
	return (len(b) + bytesPerToken - 1) / bytesPerToken
}

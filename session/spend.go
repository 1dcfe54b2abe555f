package session

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/coreagent/core/session/model"
)

// What a run spends, in tokens and money, and the budgets that cap it. Not
// to be confused with the context budget (budget.go): that one bounds one
// request's size, this one what a whole session may cost.

// CompletionAllowance is the completion tokens the budget check counts for
// a request before it is sent. When a budget is set, each request asks the
// server for at most that many (max_tokens), so the check's estimate
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

// cost is what prompt and completion tokens cost at p.
func (p *Price) cost(prompt, completion int) float64 {
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
	// plus the completion allowance).
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

func addCost(c **float64, v float64) {
	if *c == nil {
		*c = new(float64)
	}
	**c += v
}

// spend is what a run knows of its spending between requests.
type spend struct {
	// ratio scales the context window's estimate of a request to the
	// server's count, learned from the replies (never below 1).
	ratio float64
	// next is the estimate of the request the budget refused.
	nextTokens int
	nextUSD    *float64
	// exhausted is set once the budget stopped the run: what lands is
	// marked.
	exhausted bool
	// refusedNoted is set once the run said it refused a server's usage.
	refusedNoted bool
}

// BudgetTitlePrefix starts the title of a pull request whose run its
// budget stopped.
const BudgetTitlePrefix = "[budget exhausted] "

// startSpend prices the session, applies a top-up and readies the run's
// spending. A price given now prices the session's earlier turns too
// (they had none); a budget given to a session that ran before adds to
// what it was allowed (or, with no cap yet, to what it spent).
func (s *run) startSpend(resumed bool) {
	s.spend.ratio = 1
	rec, o := s.rec, s.opts
	if o.Price != nil && (rec.Price == nil || o.Price.Source == PriceFromSettings) {
		// A price set now wins; the endpoint's does not replace one set
		// before.
		rec.Price = o.Price
	}
	if rec.Price != nil && rec.CostUSD == nil {
		c := rec.Price.cost(rec.Usage.PromptTokens, rec.Usage.CompletionTokens)
		rec.CostUSD = &c
	}
	if o.Budget.Set() {
		b := Budget{}
		if rec.Budget != nil {
			b = *rec.Budget
		}
		if o.Budget.USD > 0 {
			from := b.USD
			if from == 0 && resumed && rec.CostUSD != nil {
				from = *rec.CostUSD
			}
			b.USD = from + o.Budget.USD
		}
		if o.Budget.Tokens > 0 {
			from := b.Tokens
			if from == 0 && resumed {
				from = rec.Usage.TotalTokens
			}
			b.Tokens = model.SaturatingAdd(from, o.Budget.Tokens)
		}
		rec.Budget = &b
		if resumed {
			fmt.Fprintf(o.Progress, "budget topped up: %s\n", s.budgetReport().Line())
		}
	}
	s.report.Price = rec.Price
	if rec.Price != nil {
		zero := 0.0
		s.report.CostUSD = &zero
	}
	if rec.Budget != nil {
		if c, ok := s.opts.Client.(interface {
			WithMaxTokens(n int) *model.Client
		}); ok {
			// The reply is bounded by the allowance the check counts.
			s.opts.Client = c.WithMaxTokens(CompletionAllowance)
		}
	}
}

// checkBudgetPrice refuses a budget in dollars that no price can count,
// before anything starts; rec is the session resumed, or nil.
func checkBudgetPrice(o Options, rec *Record) error {
	usd := o.Budget.USD > 0 || (rec != nil && rec.Budget != nil && rec.Budget.USD > 0)
	priced := o.Price != nil || (rec != nil && rec.Price != nil)
	if usd && !priced {
		return optionError("budget-usd", "a budget in dollars needs a price: set --price-input-per-mtok and --price-output-per-mtok (or price_per_mtok), or use --budget-tokens")
	}
	return nil
}

// overBudget says why a request whose prompt the context window estimates
// at est tokens must not be sent, or returns nil when it fits the budget
// with the completion allowance.
func (s *run) overBudget(est int) error {
	b := s.rec.Budget
	if b == nil {
		return nil
	}
	prompt := int(min(float64(est)*s.spend.ratio+0.5, math.MaxInt/2))
	s.spend.nextTokens = model.SaturatingAdd(prompt, CompletionAllowance)
	s.spend.nextUSD = nil
	if p := s.rec.Price; p != nil {
		c := p.cost(prompt, CompletionAllowance)
		s.spend.nextUSD = &c
	}
	if b.Tokens > 0 && model.SaturatingAdd(s.rec.Usage.TotalTokens, s.spend.nextTokens) > b.Tokens {
		return fmt.Errorf("the budget of %d tokens (--budget-tokens) would be passed: %d spent, and the next request may take about %d more; core session resume %s --budget-tokens N continues with N more",
			b.Tokens, s.rec.Usage.TotalTokens, s.spend.nextTokens, s.rec.ID)
	}
	if b.USD > 0 && s.rec.CostUSD != nil && *s.rec.CostUSD+*s.spend.nextUSD > b.USD {
		return fmt.Errorf("the budget of $%.4f (--budget-usd) would be passed: %s spent, and the next request may cost up to %s more; core session resume %s --budget-usd N continues with $N more",
			b.USD, CostText(s.rec.CostUSD), CostText(s.spend.nextUSD), s.rec.ID)
	}
	return nil
}

// spent counts what one reply cost, to the session and to this run, and
// learns how the server's count compares with the estimate est of its
// request; it returns what the request counted (countUsage).
func (s *run) spent(reply model.Reply, est int) model.Usage {
	u, ok := countUsage(reply.Usage, reply.Estimate, requestCeiling(est, s.rec.Budget != nil))
	if !ok && !s.spend.refusedNoted {
		s.spend.refusedNoted = true
		fmt.Fprintf(s.opts.Progress, "usage refused: the model server reported %d prompt, %d completion, %d total tokens for one request, outside what it could hold; it counts at core's own estimate (%d tokens), as does any other such report this run\n",
			reply.Usage.PromptTokens, reply.Usage.CompletionTokens, reply.Usage.TotalTokens, u.TotalTokens)
	}
	if !reply.UsageEstimated && est > 0 && u.PromptTokens > 0 {
		s.spend.ratio = max(1, float64(u.PromptTokens)/float64(est))
	}
	s.rec.Usage.add(u)
	s.report.Usage.add(u)
	ts := TurnSpend{Turn: s.rec.Turns, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if p := s.rec.Price; p != nil {
		c := p.cost(u.PromptTokens, u.CompletionTokens)
		addCost(&s.rec.CostUSD, c)
		addCost(&s.report.CostUSD, c)
		ts.CostUSD = &c
	}
	s.report.Spend = append(s.report.Spend, ts)
	return u
}

// spentOn names the tool the turn's reply called.
func (s *run) spentOn(st Step) {
	if n := len(s.report.Spend); n > 0 && s.report.Spend[n-1].Turn == st.Turn {
		s.report.Spend[n-1].Tools = append(s.report.Spend[n-1].Tools, st.Tool)
	}
}

// budgetReport is the budget as the report shows it; nil when none is set.
func (s *run) budgetReport() *BudgetReport {
	b := s.rec.Budget
	if b == nil {
		return nil
	}
	r := &BudgetReport{USD: b.USD, Tokens: b.Tokens, SpentTokens: s.rec.Usage.TotalTokens}
	if s.rec.CostUSD != nil {
		c := *s.rec.CostUSD
		r.SpentUSD = &c
	}
	if s.rec.Status == StatusBudgetExhausted {
		r.Exhausted, r.NextTokens, r.NextUSD = true, s.spend.nextTokens, s.spend.nextUSD
	}
	return r
}

// byTool totals the turns' spend by the tool each called, most expensive
// first (by cost when priced, else by tokens).
func byTool(turns []TurnSpend) []ToolSpend {
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
			addCost(&ts.CostUSD, *t.CostUSD)
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

package session

import (
	"fmt"
	"math"
	"strings"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/protocol"
	"github.com/coreagent/core/session/review"
)

// spend is what a run knows of its spending between requests.
type spend struct {
	// ratio scales the context window's estimate of a request to the
	// server's count, learned from the replies (never below 1).
	ratio float64
	// next is the estimate of the request the budget refused.
	nextTokens int
	nextUSD    *float64
	// maxTokens is the max_tokens of the request about to be sent: what
	// the budget leaves for its reply (0: no budget, no bound).
	maxTokens int
	// exhausted is set once the budget stopped the run: what lands is
	// marked.
	exhausted bool
	// refusedNoted is set once the run said it refused a server's usage.
	refusedNoted bool
}

// startSpend prices the session, applies a top-up and readies the run's
// spending. A price given now prices the session's earlier turns too
// (they had none); a budget given to a session that ran before adds to
// what it was allowed (or, with no cap yet, to what it spent).
func (s *run) startSpend(resumed bool) {
	s.spend.ratio = 1
	rec, o := s.rec, s.opts
	if o.Limits.Price != nil && (rec.Price == nil || o.Limits.Price.Source == budget.PriceFromSettings) {
		// A price set now wins; the endpoint's does not replace one set
		// before.
		rec.Price = o.Limits.Price
	}
	if rec.Price != nil && rec.CostUSD == nil {
		c := rec.Price.Cost(rec.Usage.PromptTokens, rec.Usage.CompletionTokens)
		rec.CostUSD = &c
	}
	if o.Limits.Budget.Set() {
		b := budget.Budget{}
		if rec.Budget != nil {
			b = *rec.Budget
		}
		if o.Limits.Budget.USD > 0 {
			from := b.USD
			if from == 0 && resumed && rec.CostUSD != nil {
				from = *rec.CostUSD
			}
			b.USD = from + o.Limits.Budget.USD
		}
		if o.Limits.Budget.Tokens > 0 {
			from := b.Tokens
			if from == 0 && resumed {
				from = rec.Usage.TotalTokens
			}
			b.Tokens = model.SaturatingAdd(from, o.Limits.Budget.Tokens)
		}
		rec.Budget = &b
		if resumed {
			fmt.Fprintf(o.Live.Progress, "budget topped up: %s\n", budget.TopUpLine(o.Limits.Budget, b, budget.Spent{Tokens: rec.Usage.TotalTokens, USD: rec.CostUSD}))
		}
	}
	s.report.Price = rec.Price
	if rec.Price != nil {
		zero := 0.0
		s.report.CostUSD = &zero
	}
}

// maxTokensClient is a model client whose replies can be bounded;
// *model.Client is one.
type maxTokensClient interface {
	WithMaxTokens(n int) *model.Client
}

// client is the model client for the request about to be sent: under a
// budget, its reply is bounded by what the budget check left it.
func (s *run) client() Completer {
	if c, ok := s.opts.Services.Client.(maxTokensClient); ok && s.spend.maxTokens > 0 {
		return c.WithMaxTokens(s.spend.maxTokens)
	}
	return s.opts.Services.Client
}

// checkBudgetPrice refuses a budget in dollars that no price can count,
// before anything starts; rec is the session resumed, or nil.
func checkBudgetPrice(o Options, rec *Record) error {
	usd := o.Limits.Budget.USD > 0 || (rec != nil && rec.Budget != nil && rec.Budget.USD > 0)
	priced := o.Limits.Price != nil || (rec != nil && rec.Price != nil)
	if usd && !priced {
		return optionError("budget-usd", "a budget in dollars needs a price: set --price-input-per-mtok and --price-output-per-mtok (or price_per_mtok), or use --budget-tokens")
	}
	return nil
}

// checkFirstRequest refuses, before the session exists, a budget that
// cannot fit its first request: the system prompt and the instruction,
// as far as they are known before the clone, and a reply of
// budget.ReplyFloor. What only the repository holds (its AGENTS.md, the
// commands its languages allow under a build or test tier) is left out,
// so the figure is a lower bound.
func checkFirstRequest(opts Options, checks []contract.Check, instruction, mode string) error {
	if !opts.Limits.Budget.Set() {
		return nil
	}
	kind, tier := kindOf(opts.Goal), opts.Verification.Verify
	verify := contractRule(tier, checks)
	if len(lang.AllowedIn(tier, nil)) == 0 {
		// A tier that allows no command says so whatever the languages.
		verify = verifyRule(tier, nil) + verify
	}
	set := toolsFor(&Record{RecordTask: RecordTask{Kind: kind}})
	system := protocol.SystemPrompt(protocol.PromptConfig{
		ToolDocs: set.Doc(),
		Verify:   verify,
		Native:   mode == ToolCallsNative,
		Rules:    review.Rules(kind),
	})
	if !opts.Inference.Think {
		instruction = strings.TrimRight(instruction, "\n") + "\n\n" + protocol.NoThink
	}
	est := budget.RequestEstimate([]model.Message{{Role: model.RoleSystem, Content: system}, {Role: model.RoleUser, Content: instruction}})
	if mode == ToolCallsNative {
		est += budget.ToolsEstimate(nativeTools(set))
	}
	if option, err := budget.FirstFit(opts.Limits.Budget, opts.Limits.Price, est, true); err != nil {
		return &ConfigError{Option: option, Err: err}
	}
	return nil
}

// toolsEstimate is the estimate of the native tools' definitions a
// request carries besides its messages: 0 in text mode.
func (s *run) toolsEstimate() int {
	if !s.native() {
		return 0
	}
	return budget.ToolsEstimate(nativeTools(s.tools))
}

// overBudget says why a request whose prompt the context window estimates
// at est tokens must not be sent, or returns nil when it fits the budget
// with a reply of at least budget.ReplyFloor; then the request asks for
// what the budget leaves (s.spend.maxTokens), at most
// budget.CompletionAllowance.
func (s *run) overBudget(est int) error {
	b := s.rec.Budget
	if b == nil {
		return nil
	}
	prompt := int(min(float64(est)*s.spend.ratio+0.5, math.MaxInt/2))
	reply := budget.ReplyTokens(*b, s.rec.Price, budget.Spent{Tokens: s.rec.Usage.TotalTokens, USD: s.rec.CostUSD}, prompt)
	s.spend.maxTokens = max(reply, budget.ReplyFloor)
	if reply >= budget.ReplyFloor {
		return nil
	}
	s.spend.nextTokens = model.SaturatingAdd(prompt, budget.ReplyFloor)
	s.spend.nextUSD = nil
	if p := s.rec.Price; p != nil {
		c := p.Cost(prompt, budget.ReplyFloor)
		s.spend.nextUSD = &c
	}
	s.spend.exhausted = true
	r := s.budgetReport()
	hint := fmt.Sprintf("%s tops it up and continues", budget.ResumeCommand(s.rec.ID, r.TopUp()))
	if s.rec.Kind == review.Kind {
		hint = "a review is not resumed: run core review again with a larger budget"
	}
	if b.Tokens > 0 && model.SaturatingAdd(s.rec.Usage.TotalTokens, s.spend.nextTokens) > b.Tokens {
		return fmt.Errorf("the budget of %d tokens (--budget-tokens) would be passed: %d spent, and the next request needs about %d more (its prompt and a reply of at least %d); %s",
			b.Tokens, s.rec.Usage.TotalTokens, s.spend.nextTokens, budget.ReplyFloor, hint)
	}
	return fmt.Errorf("the budget of $%.4f (--budget-usd) would be passed: %s spent, and the next request needs about %s more (its prompt and a reply of at least %d tokens); %s",
		b.USD, budget.CostText(s.rec.CostUSD), budget.CostText(s.spend.nextUSD), budget.ReplyFloor, hint)
}

// spent counts what one reply cost, to the session and to this run, and
// learns how the server's count compares with the estimate est of its
// request; it returns what the request counted (countUsage).
func (s *run) spent(reply model.Reply, est int) model.Usage {
	u, ok := budget.CountUsage(reply.Usage, reply.Estimate, budget.RequestCeiling(est, s.spend.maxTokens))
	if !ok && !s.spend.refusedNoted {
		s.spend.refusedNoted = true
		fmt.Fprintf(s.opts.Live.Progress, "usage refused: the model server reported %d prompt, %d completion, %d total tokens for one request, outside what it could hold; it counts at core's own estimate (%d tokens), as does any other such report this run\n",
			reply.Usage.PromptTokens, reply.Usage.CompletionTokens, reply.Usage.TotalTokens, u.TotalTokens)
	}
	if !reply.UsageEstimated && est > 0 && u.PromptTokens > 0 {
		s.spend.ratio = max(1, float64(u.PromptTokens)/float64(est))
	}
	s.rec.Usage.add(u)
	s.report.Usage.add(u)
	ts := budget.TurnSpend{Turn: s.rec.Turns, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if p := s.rec.Price; p != nil {
		c := p.Cost(u.PromptTokens, u.CompletionTokens)
		budget.AddCost(&s.rec.CostUSD, c)
		budget.AddCost(&s.report.CostUSD, c)
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
func (s *run) budgetReport() *budget.BudgetReport {
	b := s.rec.Budget
	if b == nil {
		return nil
	}
	r := &budget.BudgetReport{USD: b.USD, Tokens: b.Tokens, SpentTokens: s.rec.Usage.TotalTokens}
	if s.rec.CostUSD != nil {
		c := *s.rec.CostUSD
		r.SpentUSD = &c
	}
	if s.spend.exhausted {
		r.Exhausted, r.NextTokens, r.NextUSD = true, s.spend.nextTokens, s.spend.nextUSD
	}
	return r
}

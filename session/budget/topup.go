package budget

import (
	"fmt"
	"math"
	"strings"

	"github.com/coreagent/core/session/model"
)

// ResumeInstruction is the instruction the resume hint gives a session
// that stopped before it was done.
const ResumeInstruction = "carry on where you stopped"

// ResumeCommand is the command that resumes session id with flags (a
// top-up, or none), as a person can paste it into a shell.
func ResumeCommand(id, flags string) string {
	cmd := fmt.Sprintf("core session resume %s %q", id, ResumeInstruction)
	if flags != "" {
		cmd += " " + flags
	}
	return cmd
}

// TopUp is the flags that top up an exhausted budget so that the request
// it refused goes: for each cap the request would pass, as much again as
// the cap (or, when more, what the request lacks). Empty when b is nil.
func (b *BudgetReport) TopUp() string {
	if b == nil {
		return ""
	}
	var flags []string
	tokens := b.Tokens > 0 && model.SaturatingAdd(b.SpentTokens, b.NextTokens) > b.Tokens
	usd := b.USD > 0 && b.SpentUSD != nil && b.NextUSD != nil && *b.SpentUSD+*b.NextUSD > b.USD
	if !tokens && !usd {
		// Not exhausted, or by a rounding the figures do not show: every
		// cap gets as much again.
		tokens, usd = b.Tokens > 0, b.USD > 0
	}
	if tokens {
		lack := model.SaturatingAdd(b.SpentTokens, b.NextTokens) - b.Tokens
		flags = append(flags, fmt.Sprintf("--budget-tokens %d", max(b.Tokens, lack)))
	}
	if usd {
		n := b.USD
		if b.SpentUSD != nil && b.NextUSD != nil {
			// Whole cents: a top-up is a figure a person types.
			n = max(n, math.Ceil((*b.SpentUSD+*b.NextUSD-b.USD)*100)/100)
		}
		flags = append(flags, "--budget-usd "+trimFloat(n))
	}
	return strings.Join(flags, " ")
}

// TopUpLine says what a top-up of added made of the budget: what the
// budget now is, and what the session spent of it: "now $20.0000
// (--budget-usd, $10.0000 more), $5.2000 spent".
func TopUpLine(added, now Budget, spent Spent) string {
	var parts []string
	if now.USD > 0 {
		more := ""
		if added.USD > 0 {
			more = fmt.Sprintf(", $%.4f more", added.USD)
		}
		parts = append(parts, fmt.Sprintf("now $%.4f (--budget-usd%s), %s spent", now.USD, more, CostText(spent.USD)))
	}
	if now.Tokens > 0 {
		more := ""
		if added.Tokens > 0 {
			more = fmt.Sprintf(", %d more", added.Tokens)
		}
		parts = append(parts, fmt.Sprintf("now %d tokens (--budget-tokens%s), %d spent", now.Tokens, more, spent.Tokens))
	}
	return strings.Join(parts, "; ")
}

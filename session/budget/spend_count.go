package budget

import (
	"math"

	"github.com/coreagent/core/session/model"
)

// What one request is counted. The model server's usage is a claim: a
// server that reports negative figures, figures that wrap a sum, or none at
// all must not let a run spend past its budget. So each request counts the
// larger of the server's figure and core's own estimate (the model
// client's ceil(len/4) of every message and of the reply, below what an
// honest tokenizer counts on code and prose, so an honest server's figure
// is the one that shows), and a server's figure outside 0..its ceiling is
// refused whole: the request counts at core's estimate.

// promptSlack is the tokens a prompt may hold past one per byte of its
// messages: the native tools' definitions and the chat template, which the
// window's estimate does not see.
const promptSlack = 1 << 16

// replyCeiling is the most completion tokens a reply is believed to take
// when no max_tokens bounds it (no budget set): more than any model's
// reply window.
const replyCeiling = 1 << 18

// UsageCeiling is the most tokens a request could honestly be counted.
type UsageCeiling struct {
	prompt, completion int
}

// RequestCeiling is the ceiling of a request whose messages the context
// window estimates at est tokens (about a third of their wire bytes): one
// token per byte plus promptSlack for the prompt; for the reply, the
// max_tokens core sent (maxTokens, with a budget: what the budget left the
// reply), else replyCeiling.
func RequestCeiling(est, maxTokens int) UsageCeiling {
	c := UsageCeiling{prompt: model.SaturatingAdd(min(max(est, 0), math.MaxInt/bytesPerToken)*bytesPerToken, promptSlack), completion: replyCeiling}
	if maxTokens > 0 {
		c.completion = min(maxTokens, replyCeiling)
	}
	return c
}

// CountUsage is what one request counts: per figure, the larger of the
// server's and core's own estimate own, the total their sum. ok is false
// when the server's figures were refused (a figure below zero or past the
// ceiling c, its total included) and the request counts at own alone.
func CountUsage(server, own model.Usage, c UsageCeiling) (counted model.Usage, ok bool) {
	ok = within(server.PromptTokens, c.prompt) &&
		within(server.CompletionTokens, c.completion) &&
		within(server.TotalTokens, model.SaturatingAdd(c.prompt, c.completion))
	counted = model.Usage{PromptTokens: max(own.PromptTokens, 0), CompletionTokens: max(own.CompletionTokens, 0)}
	if ok {
		counted.PromptTokens = max(counted.PromptTokens, server.PromptTokens)
		counted.CompletionTokens = max(counted.CompletionTokens, server.CompletionTokens)
	}
	counted.TotalTokens = model.SaturatingAdd(counted.PromptTokens, counted.CompletionTokens)
	return counted, ok
}

func within(n, ceiling int) bool { return n >= 0 && n <= ceiling }

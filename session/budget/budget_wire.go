package budget

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/coreagent/core/session/model"
)

// How the context budget estimates a request: from its messages as they go
// on the wire, the JSON go-openai sends, conservatively. Tokenizers of
// coder models average 3.5 to 4 bytes a token on code and English; JSON
// escaping only adds bytes (\n, \", \u003c), so a token per three wire bytes
// overestimates what the server will count.
const (
	bytesPerToken = 3
	// messageFraming is the tokens a chat template wraps around each
	// message (role markers, separators).
	messageFraming = 4
	// requestFraming is the tokens of the request itself and of the
	// assistant turn the template opens for the reply.
	requestFraming = 8
)

// jsonMessage is one message as go-openai marshals it.
func jsonMessage(m model.Message) ([]byte, error) {
	om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	for _, c := range m.ToolCalls {
		om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	return json.Marshal(om)
}

// SameMessage reports whether two messages are the same, tool calls
// included.
func SameMessage(a, b model.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID && slices.Equal(a.ToolCalls, b.ToolCalls)
}

// WireSize is the bytes of one message on the wire, exactly what
// jsonMessage would give, counted without building it:
// {"role":"…","content":"…"}, with no content field when it is empty.
func WireSize(role, content string) int {
	n := len(`{"role":""}`) + jsonStringLen(role)
	if content != "" {
		n += len(`,"content":""`) + jsonStringLen(content)
	}
	return n
}

// messageSize is WireSize of a message with its native tool calls and the
// id of the call it answers, as the OpenAI wire format carries them:
// "tool_calls":[{"id":"…","type":"function","function":{"name":"…","arguments":"…"}}]
// and "tool_call_id":"…".
func messageSize(m model.Message) int {
	n := WireSize(m.Role, m.Content)
	if len(m.ToolCalls) > 0 {
		n += len(`,"tool_calls":[]`)
		for i, c := range m.ToolCalls {
			if i > 0 {
				n++
			}
			n += len(`{"id":"","type":"function","function":{"name":"","arguments":""}}`) +
				jsonStringLen(c.ID) + jsonStringLen(c.Name) + jsonStringLen(c.Arguments)
		}
	}
	if m.ToolCallID != "" {
		n += len(`,"tool_call_id":""`) + jsonStringLen(m.ToolCallID)
	}
	return n
}

// jsonStringLen is the length of s inside quotes as encoding/json writes
// it: HTML-escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func jsonStringLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			switch {
			case b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&':
				n++
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			default:
				n += 6 // \u00XX
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// messageTokens is the estimate of one message of size wire bytes.
func messageTokens(size int) int {
	return (size+bytesPerToken-1)/bytesPerToken + messageFraming
}

// ContextStats is what a run sent the model: report.json's "context".
type ContextStats struct {
	// Budget is the estimated tokens one request may hold
	// (--context-tokens).
	Budget int `json:"budget"`
	// Requests is how many requests were sent.
	Requests int `json:"requests"`
	// SentTokensEstimated is the estimate of all the requests' tokens; the
	// server's own count, when it reports one, is usage.prompt_tokens.
	SentTokensEstimated int `json:"sent_tokens_estimated"`
	// LargestRequestEstimated is the estimate of the largest request.
	LargestRequestEstimated int `json:"largest_request_estimated"`
	// PrefixReuseMedian is the median, over the requests after the first,
	// of the share of each request's messages (their JSON, in bytes) that
	// repeats the previous request's beginning: what a server's prompt
	// cache can reuse.
	PrefixReuseMedian float64 `json:"prefix_reuse_median"`
	// BlockElisions is how many requests elided, masked or cut something
	// that the request before had whole.
	BlockElisions int `json:"block_elisions"`
}

// contextStats gathers ContextStats request by request.
type contextStats struct {
	budget   int
	requests int
	sent     int
	largest  int
	blocks   int
	shares   []float64
	prev     []model.Message
}

// record counts one request: msgs, each one's wire size, and its estimate.
func (c *contextStats) record(msgs []model.Message, sizes []int, est int, block bool) {
	c.requests++
	c.sent += est
	c.largest = max(c.largest, est)
	if block {
		c.blocks++
	}
	if c.prev != nil {
		c.shares = append(c.shares, PrefixShare(c.prev, msgs, sizes))
	}
	c.prev = msgs
}

// PrefixShare is the bytes that the JSON array of cur shares at its start
// with that of prev, over the size of cur's. Messages are compared whole,
// and only the first that differs byte by byte.
func PrefixShare(prev, cur []model.Message, sizes []int) float64 {
	total := 1 // "["
	for _, s := range sizes {
		total += s + 1 // the message and "," or "]"
	}
	common := 1
	k := 0
	for k < len(prev) && k < len(cur) && SameMessage(prev[k], cur[k]) {
		common += sizes[k] + 1
		k++
	}
	if k < len(prev) && k < len(cur) {
		a, _ := jsonMessage(prev[k])
		b, _ := jsonMessage(cur[k])
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		common += n
	} else if len(prev) != len(cur) {
		common-- // one ends with "]" where the other goes on with ","
	}
	return min(float64(common)/float64(total), 1)
}

// snapshot returns the figures so far.
func (c *contextStats) snapshot() ContextStats {
	s := ContextStats{
		Budget:                  c.budget,
		Requests:                c.requests,
		SentTokensEstimated:     c.sent,
		LargestRequestEstimated: c.largest,
		BlockElisions:           c.blocks,
	}
	if n := len(c.shares); n > 0 {
		sorted := slices.Sorted(slices.Values(c.shares))
		s.PrefixReuseMedian = (sorted[(n-1)/2] + sorted[n/2]) / 2
	}
	return s
}

// RequestEstimate is a request's estimate in tokens, computed afresh from
// its messages: the figure the window holds each request to.
func RequestEstimate(msgs []model.Message) int {
	n := requestFraming
	for _, m := range msgs {
		n += messageTokens(messageSize(m))
	}
	return n
}

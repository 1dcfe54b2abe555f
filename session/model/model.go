// Package model is the engine's client for an OpenAI-compatible chat model
// server (llama.cpp's llama-server, Ollama, vLLM): one non-streaming chat
// completion per turn, retried through transient failures, plus discovery of
// a server on the usual local ports.
//
// Failures come back as *Error, whose Kind tells the engine what happened:
// KindTransient (the server kept failing in ways that could pass: refused or
// reset connections, an attempt that timed out, HTTP 408/425/429/5xx other
// than 501/505; only returned when Config.MaxAttempts is set), KindPersistent
// (retrying cannot help: other 4xx such as a bad request, a wrong API key or
// an unknown model, an invalid URL, an answer that is not JSON),
// KindCanceled (ctx ended first; errors.Is(err, context.DeadlineExceeded)
// then tells a timeout from a cancellation) and KindEmpty (the server
// answered but the message has no content).
//
// Only the caller's ctx makes an error satisfy context.DeadlineExceeded or
// context.Canceled: a single attempt that times out (Config.AttemptTimeout
// or http.Client.Timeout) is a transient failure whose error deliberately
// does not wrap context.DeadlineExceeded.
package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coreagent/core/internal/pause"
	"github.com/rs/zerolog"
	openai "github.com/sashabaranov/go-openai"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string // RoleSystem, RoleUser, RoleAssistant or RoleTool
	Content string
	// ToolCalls are an assistant message's native tool calls.
	ToolCalls []ToolCall
	// ToolCallID is, in a RoleTool message, the call it answers.
	ToolCallID string
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
}

// Add adds o to u, each sum saturating (SaturatingAdd).
func (u *Usage) Add(o Usage) {
	u.PromptTokens = SaturatingAdd(u.PromptTokens, o.PromptTokens)
	u.CompletionTokens = SaturatingAdd(u.CompletionTokens, o.CompletionTokens)
	u.TotalTokens = SaturatingAdd(u.TotalTokens, o.TotalTokens)
}

// SaturatingAdd adds two token counts, held to 0..math.MaxInt: a sum
// never wraps, and no total goes negative.
func SaturatingAdd(a, b int) int {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// Reply is the model's answer to one Complete call.
type Reply struct {
	Content string
	// ToolCalls are the native tool calls of the message, when the server
	// returned any (with tools sent, or on its own).
	ToolCalls []ToolCall
	// FinishReason is the server's, e.g. "stop" or "length" (cut off).
	FinishReason string
	// Model is the model the server says answered.
	Model string
	// Usage is the server's count; when the server reports none it is
	// Estimate, and UsageEstimated is set.
	Usage          Usage
	UsageEstimated bool
	// Estimate is core's own count of the request and the reply:
	// ceil(len/4) of each message's content, of the reply's content and
	// of each native call's name and arguments. Whatever the server
	// reports, a budget counts at least this.
	Estimate Usage
	// Attempts is how many requests the call took; Duration is its wall
	// time including retries.
	Attempts int
	Duration time.Duration
}

// Backoff bounds the exponential wait between attempts: Initial before the
// second, doubling to at most Max, with jitter (each wait is drawn from
// [d/2, d]). Zero fields take DefaultBackoff's values.
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
}

// DefaultMaxAttempts is how many attempts an entry point gives one model
// call before the run fails: a server that keeps answering 5xx fails the
// run in well under a minute instead of holding it for the turn's timeout.
const DefaultMaxAttempts = 6

// DefaultBackoff is the backoff used for zero Backoff fields.
func DefaultBackoff() Backoff {
	return Backoff{Initial: 500 * time.Millisecond, Max: 15 * time.Second}
}

// Config configures a Client.
type Config struct {
	// BaseURL is the server's OpenAI-compatible base, with or without a
	// trailing "/v1" (see NormalizeBaseURL).
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends no
	// Authorization header (local servers need none).
	APIKey string
	// Model names the model; llama-server answers with its loaded model
	// whatever is sent, Ollama and vLLM need the real name (see Models).
	Model string
	// HTTPClient is used for requests; nil means a new http.Client.
	HTTPClient *http.Client
	Backoff    Backoff
	// MaxAttempts bounds the attempts of one Complete call; 0 retries
	// transient failures until ctx ends.
	MaxAttempts int
	// AttemptTimeout bounds one attempt; 0 means none (local models can
	// take minutes on a long prompt).
	AttemptTimeout time.Duration
	// Temperature, when set, is sent; nil leaves the server's default.
	// Zero is sent as the smallest positive float32, because go-openai
	// omits a zero temperature from the request.
	Temperature *float32
	// OnRetry, when set, is told of each failed attempt that will be
	// retried, before the wait: people see the retries as they happen.
	OnRetry func(Retry)
}

// Retry is one failed attempt that Complete will retry.
type Retry struct {
	Attempt     int           // the attempt that failed, from 1
	MaxAttempts int           // 0: until the turn's time runs out
	Wait        time.Duration // before the next attempt
	Status      int           // the HTTP status, 0 when there was none
	Err         error
}

// String says it for people: "500 Internal Server Error, retry 2/6 in 4s".
func (r Retry) String() string {
	why := ""
	if r.Status != 0 {
		why = fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status))
	} else if r.Err != nil {
		why = r.Err.Error()
	}
	next := fmt.Sprint(r.Attempt + 1)
	if r.MaxAttempts > 0 {
		next += fmt.Sprintf("/%d", r.MaxAttempts)
	}
	return fmt.Sprintf("%s, retry %s in %s", why, next, r.Wait.Round(100*time.Millisecond))
}

// Client talks to one model server. It is safe for concurrent use.
type Client struct {
	endpoint       string // normalised base URL, ending in /v1
	configErr      error
	api            *openai.Client
	model          string
	backoff        Backoff
	maxAttempts    int
	attemptTimeout time.Duration
	temperature    *float32
	onRetry        func(Retry)
	maxTokens      int
	// apiKey and hc are for the requests the OpenAI client does not make
	// (Price).
	apiKey string
	hc     *http.Client
}

// WithMaxTokens returns a client like c whose requests ask for at most n
// completion tokens (max_tokens): a run with a budget bounds each reply by
// what its check counted.
func (c *Client) WithMaxTokens(n int) *Client {
	d := *c
	d.maxTokens = n
	return &d
}

// New returns a client for cfg. A malformed BaseURL is reported by the
// first call, as a KindPersistent *Error.
func New(cfg Config) *Client {
	endpoint, err := NormalizeBaseURL(cfg.BaseURL)
	if err != nil {
		endpoint = cfg.BaseURL
	}
	oc := openai.DefaultConfig(strings.TrimSpace(cfg.APIKey))
	oc.BaseURL = endpoint
	oc.HTTPClient = withRetryAfter(cfg.HTTPClient)
	return &Client{
		endpoint:       endpoint,
		configErr:      err,
		api:            openai.NewClientWithConfig(oc),
		model:          cfg.Model,
		backoff:        cfg.Backoff.withDefaults(),
		maxAttempts:    cfg.MaxAttempts,
		attemptTimeout: cfg.AttemptTimeout,
		temperature:    cfg.Temperature,
		onRetry:        cfg.OnRetry,
		apiKey:         strings.TrimSpace(cfg.APIKey),
		hc:             cfg.HTTPClient,
	}
}

// NormalizeBaseURL checks an OpenAI-compatible base URL and returns it
// without trailing slashes and ending in "/v1": "http://127.0.0.1:8081",
// "http://127.0.0.1:8081/" and "http://127.0.0.1:8081/v1/" all give
// "http://127.0.0.1:8081/v1".
func NormalizeBaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("model server URL must look like http://127.0.0.1:8081 or http://127.0.0.1:8081/v1, got %q", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/v1") {
		u.Path += "/v1"
	}
	u.RawPath = ""
	return u.String(), nil
}

// Endpoint returns the normalised base URL requests go to.
func (c *Client) Endpoint() string { return c.endpoint }

// Complete sends msgs and returns the model's reply, retrying transient
// failures with backoff until one succeeds, MaxAttempts is reached or ctx
// ends. Errors are *Error. With a KindEmpty error the returned Reply is
// filled in (the tokens were spent).
func (c *Client) Complete(ctx context.Context, msgs []Message) (Reply, error) {
	return c.CompleteTools(ctx, msgs, nil)
}

// CompleteTools is Complete with tools offered to the model as OpenAI
// function definitions; the reply then may carry ToolCalls instead of
// content.
func (c *Client) CompleteTools(ctx context.Context, msgs []Message, tools []Tool) (Reply, error) {
	start := time.Now()
	if c.configErr != nil {
		return Reply{}, &Error{Kind: KindPersistent, Endpoint: c.endpoint, Err: c.configErr}
	}
	if len(msgs) == 0 {
		return Reply{}, &Error{Kind: KindPersistent, Endpoint: c.endpoint, Err: errors.New("no messages to send")}
	}
	req := c.request(msgs)
	if len(tools) > 0 {
		req.Tools = toolsFor(tools)
	}
	var last *failure
	for attempt := 1; ; attempt++ {
		resp, retryAfter, err := c.attempt(ctx, req)
		if err == nil {
			if len(resp.Choices) > 0 {
				reply := replyFrom(req, resp)
				reply.Attempts, reply.Duration = attempt, time.Since(start)
				if strings.TrimSpace(reply.Content) == "" && len(reply.ToolCalls) == 0 {
					return reply, &Error{Kind: KindEmpty, Endpoint: c.endpoint, Attempts: attempt,
						Err: fmt.Errorf("the model returned no content (finish reason %q)", reply.FinishReason)}
				}
				return reply, nil
			}
			err = noChoicesError{}
		}
		if ctx.Err() != nil {
			return Reply{}, c.stopped(ctx, attempt, last)
		}
		f := classify(err)
		if f.kind == KindPersistent {
			return Reply{}, &Error{Kind: KindPersistent, Endpoint: c.endpoint, Status: f.status, Attempts: attempt, Err: f.err}
		}
		last = &f
		if c.maxAttempts > 0 && attempt >= c.maxAttempts {
			return Reply{}, &Error{Kind: KindTransient, Endpoint: c.endpoint, Status: f.status, Attempts: attempt, Err: f.err}
		}
		wait := c.backoff.delay(attempt, retryAfter)
		zerolog.Ctx(ctx).Warn().
			Str(logKeyEndpoint, c.endpoint).
			Int(logKeyAttempt, attempt).
			Int(logKeyStatus, f.status).
			Dur(logKeyWait, wait).
			Err(f.err).
			Msg("Model request failed, retrying.")
		if c.onRetry != nil {
			c.onRetry(Retry{Attempt: attempt, MaxAttempts: c.maxAttempts, Wait: wait, Status: f.status, Err: f.err})
		}
		if err := pause.For(ctx, wait); err != nil {
			return Reply{}, c.stopped(ctx, attempt, last)
		}
	}
}

// Models lists the models the server offers, in one attempt.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	if c.configErr != nil {
		return nil, &Error{Kind: KindPersistent, Endpoint: c.endpoint, Err: c.configErr}
	}
	list, err := c.api.ListModels(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.stopped(ctx, 1, nil)
		}
		f := classify(err)
		return nil, &Error{Kind: f.kind, Endpoint: c.endpoint, Status: f.status, Attempts: 1, Err: f.err}
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

func (c *Client) request(msgs []Message) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: c.model}
	for _, m := range msgs {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{
			Role: m.Role, Content: m.Content, ToolCalls: callsToWire(m.ToolCalls), ToolCallID: m.ToolCallID,
		})
	}
	req.MaxTokens = c.maxTokens
	if c.temperature != nil {
		req.Temperature = *c.temperature
		if req.Temperature == 0 {
			req.Temperature = math.SmallestNonzeroFloat32
		}
	}
	return req
}

// attempt makes one request, bounded by AttemptTimeout, and returns the
// server's Retry-After, if it sent one.
func (c *Client) attempt(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, time.Duration, error) {
	meta := &responseMeta{}
	actx := withResponseMeta(ctx, meta)
	if c.attemptTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(actx, c.attemptTimeout)
		defer cancel()
	}
	resp, err := c.api.CreateChatCompletion(actx, req)
	return resp, meta.retryAfter, err
}

// stopped is the error for ctx ending after attempt attempts; last is the
// latest failure before that, if any.
func (c *Client) stopped(ctx context.Context, attempts int, last *failure) *Error {
	e := &Error{Kind: KindCanceled, Endpoint: c.endpoint, Attempts: attempts, Err: &stopError{ctx: ctx.Err()}}
	if last != nil {
		e.Status = last.status
		e.Err = &stopError{ctx: ctx.Err(), last: last}
	}
	return e
}

func replyFrom(req openai.ChatCompletionRequest, resp openai.ChatCompletionResponse) Reply {
	choice := resp.Choices[0]
	r := Reply{
		Content:      choice.Message.Content,
		ToolCalls:    callsFromWire(choice.Message.ToolCalls),
		FinishReason: string(choice.FinishReason),
		Model:        resp.Model,
		Usage: Usage{
			PromptTokens:     resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens,
			TotalTokens:      resp.Usage.TotalTokens,
		},
	}
	for _, m := range req.Messages {
		r.Estimate.PromptTokens = SaturatingAdd(r.Estimate.PromptTokens, estimateTokens(m.Content))
	}
	r.Estimate.CompletionTokens = estimateTokens(r.Content)
	for _, tc := range r.ToolCalls {
		r.Estimate.CompletionTokens = SaturatingAdd(r.Estimate.CompletionTokens, estimateTokens(tc.Name+tc.Arguments))
	}
	r.Estimate.TotalTokens = SaturatingAdd(r.Estimate.PromptTokens, r.Estimate.CompletionTokens)
	if r.Usage == (Usage{}) {
		r.Usage, r.UsageEstimated = r.Estimate, true
	}
	if r.Usage.TotalTokens == 0 {
		r.Usage.TotalTokens = r.Usage.PromptTokens + r.Usage.CompletionTokens
	}
	return r
}

func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// Log keys.
const (
	logKeyEndpoint = "endpoint"
	logKeyAttempt  = "attempt"
	logKeyStatus   = "status"
	logKeyWait     = "wait"
)

package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	openai "github.com/sashabaranov/go-openai"
)

// Kind classifies a failed call for the engine.
type Kind int

const (
	// KindTransient: the server kept failing in ways that could pass, until
	// Config.MaxAttempts ran out.
	KindTransient Kind = iota + 1
	// KindPersistent: retrying cannot help (bad request, wrong key, unknown
	// model, invalid URL, an answer that is not the protocol).
	KindPersistent
	// KindCanceled: ctx ended first; errors.Is with context.DeadlineExceeded
	// or context.Canceled tells which.
	KindCanceled
	// KindEmpty: the server answered with no content. Retrying the same
	// messages would likely get the same answer, so the engine should treat
	// it like a malformed reply and tell the model.
	KindEmpty
)

func (k Kind) String() string {
	switch k {
	case KindTransient:
		return "transient"
	case KindPersistent:
		return "persistent"
	case KindCanceled:
		return "canceled"
	case KindEmpty:
		return "empty"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is a failed call to the model server.
type Error struct {
	Kind     Kind
	Endpoint string // normalised base URL
	Status   int    // HTTP status of the last failed attempt; 0 if none
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model endpoint %s: ", e.Endpoint)
	switch {
	case e.Kind == KindCanceled:
		b.WriteString("stopped")
	case e.Status != 0:
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
	case e.Kind == KindTransient:
		b.WriteString("transient failure")
	case e.Kind == KindEmpty:
		b.WriteString("empty reply")
	default:
		b.WriteString("request failed")
	}
	switch {
	case e.Attempts == 1:
		b.WriteString(" after 1 attempt")
	case e.Attempts > 1:
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(detail(e.Err))
	}
	if e.Kind == KindPersistent {
		b.WriteString(hint(e.Status))
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// failure is one classified failed attempt.
type failure struct {
	kind   Kind
	status int
	err    error
}

func (f *failure) String() string {
	if f.status != 0 {
		return fmt.Sprintf("%d %s: %s", f.status, http.StatusText(f.status), detail(f.err))
	}
	return detail(f.err)
}

// stopError is ctx's error, with the failure that was being retried.
type stopError struct {
	ctx  error
	last *failure
}

func (e *stopError) Error() string {
	if e.last == nil {
		return e.ctx.Error()
	}
	return e.ctx.Error() + "; last failure: " + e.last.String()
}

func (e *stopError) Unwrap() []error {
	if e.last == nil {
		return []error{e.ctx}
	}
	return []error{e.ctx, e.last.err}
}

// noChoicesError is a 200 answer without choices: a server glitch, retried.
type noChoicesError struct{}

func (noChoicesError) Error() string { return "the server answered without choices" }

// attemptTimeoutError replaces a single attempt's timeout, so that only
// the caller's ctx makes an error match context.DeadlineExceeded.
type attemptTimeoutError struct{ msg string }

func (e *attemptTimeoutError) Error() string { return "no answer in time: " + e.msg }
func (e *attemptTimeoutError) Timeout() bool { return true }

// classify sorts a failed attempt's error; the caller has checked that its
// own ctx is still live.
func classify(err error) failure {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return byStatus(apiErr.HTTPStatusCode, err)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return byStatus(reqErr.HTTPStatusCode, err)
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return failure{kind: KindTransient, err: &attemptTimeoutError{msg: err.Error()}}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return failure{kind: KindPersistent, err: err}
		}
		return failure{kind: KindTransient, err: err}
	}
	var opErr *net.OpError
	var noChoices noChoicesError
	if errors.As(err, &noChoices) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.As(err, &opErr) {
		return failure{kind: KindTransient, err: err}
	}
	return failure{kind: KindPersistent, err: err}
}

// byStatus: 408, 425, 429 and 5xx other than 501 and 505 may pass.
func byStatus(status int, err error) failure {
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusTooEarly, status == http.StatusTooManyRequests,
		status >= 500 && status != http.StatusNotImplemented && status != http.StatusHTTPVersionNotSupported:
		return failure{kind: KindTransient, status: status, err: err}
	}
	return failure{kind: KindPersistent, status: status, err: err}
}

// detail is err's message without go-openai's repetition of the status.
func detail(err error) string {
	switch e := err.(type) {
	case *openai.APIError:
		if e.Message != "" {
			return e.Message
		}
	case *openai.RequestError:
		if body := strings.TrimSpace(string(e.Body)); body != "" {
			const max = 200
			if len(body) > max {
				body = body[:max] + "…"
			}
			return "unexpected answer: " + body
		}
		if e.Err != nil {
			return e.Err.Error()
		}
	}
	return err.Error()
}

// hint says what to check after a persistent failure.
func hint(status int) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return " (check the API key)"
	case http.StatusNotFound:
		return " (check the model name and that the URL is an OpenAI-compatible server's base)"
	}
	return ""
}

package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// ProbeTimeout bounds each discovery probe.
const ProbeTimeout = 2 * time.Second

// maxProbeBody bounds what a probe reads of a model list.
const maxProbeBody = 4 << 20

// DefaultCandidates returns the base URLs Discover tries when none is
// configured, in order: core's own port, the ports people give llama.cpp's
// llama-server and vLLM (8081) and llama-server's default (8080), then
// Ollama's (11434).
func DefaultCandidates() []string {
	return []string{"http://127.0.0.1:35536", "http://127.0.0.1:8081", "http://127.0.0.1:8080", "http://127.0.0.1:11434"}
}

// Probe is one candidate Discover tried and why it was passed over.
type Probe struct {
	URL string // the candidate as given
	Err error
}

// DiscoveryError says no candidate answered, what each did, and how to
// start a server.
type DiscoveryError struct {
	Tried []Probe
	// Given is set when the URL was given (a flag, an input, the
	// environment) rather than discovered.
	Given bool
}

func (e *DiscoveryError) Error() string {
	var b strings.Builder
	if e.Given && len(e.Tried) == 1 {
		fmt.Fprintf(&b, "no OpenAI-compatible model server answers at %s: %v\n", e.Tried[0].URL, e.Tried[0].Err)
	} else {
		b.WriteString("no OpenAI-compatible model server found; tried:\n")
		for _, p := range e.Tried {
			fmt.Fprintf(&b, "  %s: %v\n", p.URL, p.Err)
		}
	}
	b.WriteString(`start one, for example:
  llama-server -hf ggml-org/Qwen3-Coder-30B-A3B-Instruct-Q8_0-GGUF --port 8080
  vllm serve MODEL --port 8081
  ollama serve    (then ollama pull qwen3-coder, and pass --model qwen3-coder)
or point core at a running server with --inference-url URL or CORE_SESSION_INFERENCE_URL`)
	return b.String()
}

// Discover probes each candidate base URL in order with GET <base>/v1/models
// (at most ProbeTimeout each) and returns the first, as given, that answers
// 200 with an OpenAI model list. hc nil means a new http.Client. When none
// answers the error is a *DiscoveryError; when ctx ends first it is ctx's.
func Discover(ctx context.Context, candidates []string, hc *http.Client) (string, error) {
	if len(candidates) == 0 {
		return "", errors.New("discover model server: no candidate URLs to probe")
	}
	if hc == nil {
		hc = &http.Client{}
	}
	var tried []Probe
	for _, c := range candidates {
		err := probe(ctx, hc, c)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("discover model server: %w", ctx.Err())
		}
		tried = append(tried, Probe{URL: c, Err: err})
	}
	return "", &DiscoveryError{Tried: tried}
}

// probeError is a short reason for a failed probe, wrapping the cause.
type probeError struct {
	reason string
	err    error
}

func (e *probeError) Error() string { return e.reason }
func (e *probeError) Unwrap() error { return e.err }

func probe(ctx context.Context, hc *http.Client, base string) error {
	endpoint, err := NormalizeBaseURL(base)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/models", nil)
	if err != nil {
		return fmt.Errorf("build probe: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return &probeError{reason: connectReason(err), err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &probeError{reason: fmt.Sprintf("GET /v1/models answered %s", resp.Status)}
	}
	var list map[string]json.RawMessage
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxProbeBody)).Decode(&list); err != nil {
		return &probeError{reason: "GET /v1/models answered 200 but not with a JSON object", err: err}
	}
	data, ok := list["data"]
	if !ok {
		return &probeError{reason: `GET /v1/models answered 200 but without a "data" model list`}
	}
	// Ollama sends "data": null when no model is pulled: still a server.
	var models []json.RawMessage
	if err := json.Unmarshal(data, &models); err != nil {
		return &probeError{reason: `GET /v1/models answered 200 but its "data" is not a list`, err: err}
	}
	return nil
}

func connectReason(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "no answer in time"
	}
	return err.Error()
}

// Endpoint picks the model endpoint: the first of given that is set (a
// flag, an input, CORE_SESSION_INFERENCE_URL, in the caller's order), else
// the first local server that answers (discovered true). A given URL is
// checked at once, so that a dead one fails in seconds, not after the
// retries of the first turn: a malformed URL is an error, and so is one
// where no HTTP server answers (*DiscoveryError, with Given set). Any HTTP
// answer passes: some servers do not list their models.
func Endpoint(ctx context.Context, hc *http.Client, given ...string) (url string, discovered bool, err error) {
	for _, u := range given {
		if u = strings.TrimSpace(u); u != "" {
			if _, err := NormalizeBaseURL(u); err != nil {
				return "", false, err
			}
			if err := reachable(ctx, hc, u); err != nil {
				if ctx.Err() != nil {
					return "", false, fmt.Errorf("check model server: %w", ctx.Err())
				}
				return "", false, &DiscoveryError{Tried: []Probe{{URL: u, Err: err}}, Given: true}
			}
			return u, false, nil
		}
	}
	url, err = Discover(ctx, DefaultCandidates(), hc)
	return url, err == nil, err
}

// reachable reports whether an HTTP server answers GET <base>/v1/models
// within ProbeTimeout, whatever its status.
func reachable(ctx context.Context, hc *http.Client, base string) error {
	endpoint, err := NormalizeBaseURL(base)
	if err != nil {
		return err
	}
	if hc == nil {
		hc = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/models", nil)
	if err != nil {
		return fmt.Errorf("build probe: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return &probeError{reason: connectReason(err), err: err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxProbeBody))
	resp.Body.Close()
	return nil
}

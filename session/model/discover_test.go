package model_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/model"
)

// plainServer answers every request with status and body.
func plainServer(t *testing.T, status int, body string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func TestDiscoverPicksFirstAnsweringInOrder(t *testing.T) {
	t.Parallel()
	first := llm.NewModelServer(t)
	second := llm.NewModelServer(t)
	dead := "http://" + deadAddr(t)
	got, err := model.Discover(t.Context(), []string{dead, first.URL, second.URL}, nil)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if got != first.URL {
		t.Errorf("Discover = %q, want the first live server %q", got, first.URL)
	}
	if first.ModelListRequests() != 1 || second.ModelListRequests() != 0 {
		t.Errorf("model list probes: first %d second %d, want 1 and 0", first.ModelListRequests(), second.ModelListRequests())
	}
}

func TestDiscoverSkipsWhatIsNotAModelServer(t *testing.T) {
	t.Parallel()
	live := llm.NewModelServer(t)
	candidates := []string{
		plainServer(t, http.StatusOK, "<html>a web UI</html>"),
		plainServer(t, http.StatusNotFound, "404 page not found"),
		plainServer(t, http.StatusOK, `{"models": []}`),
		live.URL + "/v1/",
	}
	got, err := model.Discover(t.Context(), candidates, nil)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if got != live.URL+"/v1/" {
		t.Errorf("Discover = %q, want the model server as given, %q", got, live.URL+"/v1/")
	}
}

func TestDiscoverAcceptsEmptyModelList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
	}{
		{name: "empty list", body: `{"object":"list","data":[]}`},
		{name: "null list (Ollama with no models)", body: `{"object":"list","data":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := plainServer(t, http.StatusOK, tt.body)
			got, err := model.Discover(t.Context(), []string{url}, nil)
			if err != nil || got != url {
				t.Errorf("Discover = %q, %v; want %q", got, err, url)
			}
		})
	}
}

func TestDiscoverNoServer(t *testing.T) {
	t.Parallel()
	hanging := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(hanging.Close)
	candidates := []string{
		"http://" + deadAddr(t),
		plainServer(t, http.StatusNotFound, "nope"),
		plainServer(t, http.StatusOK, "<html></html>"),
		hanging.URL,
		"not a url",
	}
	// Long enough for a loopback server to answer on a busy machine; the
	// hanging one is given up on after it.
	hc := &http.Client{Timeout: 5 * time.Second}
	_, err := model.Discover(t.Context(), candidates, hc)
	var de *model.DiscoveryError
	if !errors.As(err, &de) {
		t.Fatalf("error = %v (%T), want *model.DiscoveryError", err, err)
	}
	if len(de.Tried) != len(candidates) {
		t.Fatalf("tried %d candidates, want %d", len(de.Tried), len(candidates))
	}
	wantReasons := []string{
		"connection refused",
		"GET /v1/models answered 404 Not Found",
		"GET /v1/models answered 200 but not with a JSON object",
		"no answer in time",
		"model server URL must look like",
	}
	for i, p := range de.Tried {
		if p.URL != candidates[i] || !strings.Contains(p.Err.Error(), wantReasons[i]) {
			t.Errorf("probe %d = %s: %v, want %s: %s", i, p.URL, p.Err, candidates[i], wantReasons[i])
		}
	}
	if !errors.Is(de.Tried[0].Err, syscall.ECONNREFUSED) {
		t.Errorf("probe error %v does not wrap ECONNREFUSED", de.Tried[0].Err)
	}
	msg := err.Error()
	for _, want := range append(slices.Clone(candidates),
		"no OpenAI-compatible model server found",
		"llama-server -hf ggml-org/Qwen3-Coder-30B-A3B-Instruct-Q8_0-GGUF --port 8080",
		"vllm serve MODEL --port 8081",
		"ollama serve",
		"ollama pull qwen3-coder, and pass --model qwen3-coder",
		"CORE_SESSION_INFERENCE_URL",
	) {
		if !strings.Contains(msg, want) {
			t.Errorf("error message lacks %q:\n%s", want, msg)
		}
	}
}

func TestDiscoverStopsWithContext(t *testing.T) {
	t.Parallel()
	live := llm.NewModelServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := model.Discover(ctx, []string{live.URL}, nil)
	var de *model.DiscoveryError
	if !errors.Is(err, context.Canceled) || errors.As(err, &de) {
		t.Errorf("error = %v, want context.Canceled and no DiscoveryError", err)
	}
}

func TestDiscoverNoCandidates(t *testing.T) {
	t.Parallel()
	if _, err := model.Discover(t.Context(), nil, nil); err == nil || !strings.Contains(err.Error(), "no candidate") {
		t.Errorf("error = %v, want one saying there is nothing to probe", err)
	}
}

func TestDefaultCandidates(t *testing.T) {
	t.Parallel()
	want := []string{"http://127.0.0.1:35536", "http://127.0.0.1:8081", "http://127.0.0.1:8080", "http://127.0.0.1:11434"}
	got := model.DefaultCandidates()
	if !slices.Equal(got, want) {
		t.Errorf("DefaultCandidates = %q, want %q", got, want)
	}
	got[0] = "changed"
	if model.DefaultCandidates()[0] != want[0] {
		t.Error("DefaultCandidates returned shared state")
	}
}

// TestDiscoverFixedPort runs the discovery users get on a fixed port, with a
// server started the way end-to-end scripts start one.
func TestDiscoverFixedPort(t *testing.T) {
	t.Parallel()
	addr := deadAddr(t)
	s, err := llm.ServeModel(t.Context(), addr, nil)
	if err != nil {
		t.Fatalf("ServeModel: %v", err)
	}
	t.Cleanup(s.Close)
	got, err := model.Discover(t.Context(), []string{"http://" + deadAddr(t), "http://" + addr}, nil)
	if err != nil || got != "http://"+addr {
		t.Errorf("Discover = %q, %v; want http://%s", got, err, addr)
	}
}

func TestEndpoint(t *testing.T) {
	t.Parallel()
	// A server that does not list models is still a server.
	alive := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(alive.Close)
	url, discovered, err := model.Endpoint(t.Context(), nil, "", "  ", alive.URL, "http://later:2")
	if err != nil || discovered || url != alive.URL {
		t.Fatalf("Endpoint = %q, %v, %v; want the first given URL, not discovered", url, discovered, err)
	}
	// Nothing given: it discovers; with the context gone, discovery fails
	// and nothing counts as discovered.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	url, discovered, err = model.Endpoint(ctx, nil, "", "")
	if err == nil || discovered || url != "" {
		t.Fatalf("Endpoint with nothing given and no context = %q, %v, %v; want a discovery error", url, discovered, err)
	}
}

func TestEndpointGivenFailsFast(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // nothing listens there now
	tests := []struct {
		name, url, want string
		discovery       bool
	}{
		{name: "nothing listens", url: deadURL, want: "no OpenAI-compatible model server answers at " + deadURL + ": connection refused", discovery: true},
		{name: "no scheme", url: "127.0.0.1:8081", want: "model server URL must look like http://127.0.0.1:8081"},
		{name: "not http", url: "ftp://127.0.0.1:8081", want: "model server URL must look like"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := model.Endpoint(t.Context(), nil, tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Endpoint(%q) error = %v; want it to say %q", tt.url, err, tt.want)
			}
			var de *model.DiscoveryError
			if got := errors.As(err, &de); got != tt.discovery {
				t.Fatalf("Endpoint(%q) error is a *DiscoveryError: %v, want %v", tt.url, got, tt.discovery)
			}
			if tt.discovery && !strings.Contains(err.Error(), "llama-server") {
				t.Errorf("the error says how to start a server: %v", err)
			}
		})
	}
}

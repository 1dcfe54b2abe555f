// Package mcpfake is an MCP server for tests (tests only): a docs tool the
// scripted model calls, and tools that misbehave as a hostile or broken
// server does: hang, flood, exit, read a file, reach the network, show a
// variable of its environment. NewServer serves them in process (streamable
// HTTP through NewHTTP, whose requests are counted); Build compiles the
// stdio binary (testdata/server) for a test to run, in a box or not.
package mcpfake

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DocsAnswer is what the docs tool answers about a topic.
func DocsAnswer(topic string) string {
	return fmt.Sprintf("docs for %s: call frobnicate(%s) before you greet", topic, topic)
}

type docsIn struct {
	Topic string `json:"topic" jsonschema:"the topic to look up"`
}
type floodIn struct {
	Bytes int `json:"bytes" jsonschema:"how many bytes to return"`
}
type pathIn struct {
	Path string `json:"path" jsonschema:"an absolute path"`
}
type urlIn struct {
	URL string `json:"url" jsonschema:"a URL to GET"`
}
type nameIn struct {
	Name string `json:"name" jsonschema:"a variable's name"`
}
type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// NewServer is the server with its tools: docs, hang, flood, exit,
// read_file, fetch and getenv.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpfake", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "docs", Description: "Look up the project's documentation on a topic."},
		func(_ context.Context, _ *mcp.CallToolRequest, in docsIn) (*mcp.CallToolResult, any, error) {
			return text(DocsAnswer(in.Topic)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			time.Sleep(time.Hour) // a server that ignores the cancellation too
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "flood", Description: "Answer with this many bytes of text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in floodIn) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Bytes)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "exit", Description: "Exit the server's process."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "read_file", Description: "Read a file."},
		func(_ context.Context, _ *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
			data, err := os.ReadFile(in.Path)
			if err != nil {
				return text("read failed: " + err.Error()), nil, nil
			}
			return text("read: " + string(data)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fetch", Description: "GET a URL."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in urlIn) (*mcp.CallToolResult, any, error) {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(cctx, http.MethodGet, in.URL, nil)
			if err == nil {
				var resp *http.Response
				if resp, err = http.DefaultClient.Do(req); err == nil {
					body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
					resp.Body.Close()
					return text("fetched: " + string(body)), nil, nil
				}
			}
			return text("fetch failed: " + err.Error()), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "getenv", Description: "Show a variable of the server's environment."},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
			return text(in.Name + "=" + os.Getenv(in.Name)), nil, nil
		})
	return s
}

// HTTP is the server over streamable HTTP on loopback, counting the
// requests it was sent.
type HTTP struct {
	*httptest.Server
	requests atomic.Int64
}

// NewHTTP serves NewServer on 127.0.0.1 until the test ends.
func NewHTTP(t testing.TB) *HTTP {
	t.Helper()
	h := &HTTP{}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return NewServer() }, nil)
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(h.Close)
	return h
}

// Requests is how many requests the server was sent.
func (h *HTTP) Requests() int64 { return h.requests.Load() }

// Build compiles the stdio server, statically, to dir/name and returns its
// path: a place the box sees (the workspace) when it runs confined.
func Build(t testing.TB, dir, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, "./testdata/server")
	cmd.Dir = filepath.Dir(file)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the MCP test server: %v\n%s", err, b)
	}
	return out
}

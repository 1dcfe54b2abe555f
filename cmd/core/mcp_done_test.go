package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/mcpfake"
	"github.com/coreagent/core/internal/testkit/otlp"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/telemetry"
)

// TestMCPWholeRunTraced is #40's "done when", whole: an MCP client drives
// core mcp through a run on a repository whose .mcp.json declares a stdio
// docs server; the run calls the server's tool (confined in its box),
// runs a command, fixes its check (go test) and lands; and the run's trace, with a
// span per turn, tool call, sandbox command and check, arrives at an OTLP
// receiver on loopback.
func TestMCPWholeRunTraced(t *testing.T) {
	t.Parallel()
	if !bwrapUsable(t) {
		t.Skip("bwrap is not usable here: the repository's MCP server runs in the box")
	}
	// A Go module whose test passes once hello.txt greets as the docs say.
	repo := testkit.GitRepo(t, map[string]string{
		"go.mod": "module example.com/greet\n\ngo 1.26\n",
		"greet_test.go": "package greet\n\nimport (\n\t\"os\"\n\t\"strings\"\n\t\"testing\"\n)\n\n" +
			"func TestGreeting(t *testing.T) {\n\tb, _ := os.ReadFile(\"hello.txt\")\n\tif !strings.Contains(string(b), \"frobnicate\") {\n\t\tt.Fatal(\"hello.txt does not greet\")\n\t}\n}\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "tools"), 0o755))
	mcpfake.Build(t, filepath.Join(repo, "tools"), "docs-server")
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".mcp.json"), []byte(`{"mcpServers": {"docs": {"command": "./tools/docs-server"}}}`), 0o644))
	testkit.Git(t, repo, "add", ".")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "docs server")

	model := llm.NewModelServer(t,
		llm.ToolCallReply("mcp__docs__docs", `{"topic": "greeting"}`),
		llm.ToolCallReply("write_file", `{"path": "hello.txt", "content": "frobnicate(greeting)\n"}`),
		llm.ToolCallReply("run_shell", `{"command": "go vet ./..."}`),
		llm.ToolCallReply("done", `{"summary": "Greet as the docs say"}`),
	)
	collector := otlp.New(t)
	home := t.TempDir()
	// The user's settings let the repository's docs server be called
	// unattended; nothing else is allowed.
	require.NoError(t, os.WriteFile(filepath.Join(home, "mcp.json"), []byte(`{"mcpServers": {}, "core": {"unattended": ["docs"]}}`), 0o600))
	environ := append(mcpEnv(t, home), "CORE_SESSION_INFERENCE_URL="+model.URL, "GOMODCACHE="+filepath.Join(home, "user-gomod"),
		"OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL, "OTEL_SERVICE_NAME=core-test")
	if cache := hostBuildCache(t); cache != "" {
		environ = append(environ, "GOCACHE="+cache) // read only, through core: go test does not build the standard library anew
	}
	cs, stderr := mcpClient(t, coreProgram(t), environ, "--repo", repo, "--allow-land")

	var started startOut
	callOK(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "Greet as the docs say",
		"settings": map[string]string{"verify": "test", "check": "go test ./..."}}, &started)
	events, status := followToEnd(t, cs, started.ID)
	require.Equal(t, "completed", status, "stderr: %s", stderr)

	// The server's tool answered from the box, and the model saw it.
	reqs := model.Requests()
	require.Len(t, reqs, 4)
	msgs := reqs[1].Messages
	assert.Contains(t, msgs[len(msgs)-1].Content, mcpfake.DocsAnswer("greeting"))
	var tools []string
	for _, ev := range events {
		if ev.Kind == live.EventTool {
			tools = append(tools, ev.Tool)
		}
	}
	assert.Equal(t, []string{"mcp__docs__docs", "write_file", "run_shell", "done"}, tools)

	// It landed: the branch holds the work.
	out, err := exec.Command("git", "-C", repo, "show", "core-session/"+started.ID+":hello.txt").Output()
	require.NoError(t, err, "the run landed on its branch; stderr: %s", stderr)
	assert.Equal(t, "frobnicate(greeting)\n", string(out))

	// core mcp's exit flushes what is left of the trace.
	require.NoError(t, cs.Close())
	var spans []otlp.Span
	require.Eventually(t, func() bool {
		spans = collector.Spans()
		return slices.ContainsFunc(spans, func(s otlp.Span) bool {
			return s.Name == telemetry.SpanRun && s.Attrs[telemetry.AttrSession] == started.ID
		})
	}, testkit.Patience, 50*time.Millisecond, "the run's span reaches the collector")
	var root otlp.Span
	byID := map[string]otlp.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
		if s.Name == telemetry.SpanRun && s.Attrs[telemetry.AttrSession] == started.ID {
			root = s
		}
	}
	count := map[string]int{}
	var commandUnder []string
	for _, s := range spans {
		if s.TraceID != root.TraceID {
			continue
		}
		count[s.Name]++
		if s.SpanID != root.SpanID {
			assert.Contains(t, byID, s.Parent, "span %q hangs in the run's tree", s.Name)
		}
		switch {
		case s.Name == "execute_tool mcp__docs__docs":
			assert.Equal(t, telemetry.SpanTurn, byID[s.Parent].Name, "a tool call is under its turn")
		case strings.HasPrefix(s.Name, "command "):
			assert.Equal(t, "bwrap", s.Attrs[telemetry.AttrBackend], "span %q", s.Name)
			commandUnder = append(commandUnder, byID[s.Parent].Name)
		}
	}
	assert.Equal(t, 4, count[telemetry.SpanTurn], "a span per turn: %v", count)
	for _, name := range []string{"execute_tool mcp__docs__docs", "execute_tool write_file", "execute_tool run_shell", "command go", telemetry.SpanCheck, telemetry.SpanLand} {
		assert.Positive(t, count[name], "a %q span: %v", name, count)
	}
	assert.Contains(t, commandUnder, "execute_tool run_shell", "run_shell's command is under its tool call")
	assert.Contains(t, commandUnder, telemetry.SpanCheck, "the check's runs are under the check")
	assert.Equal(t, 4, count["chat "+reqs[0].Model], "a span per request to the model: %v", count)

	// And the metrics: the run by its ending, its commands' durations.
	require.Eventually(t, func() bool {
		return slices.ContainsFunc(collector.Points(), func(p otlp.Point) bool {
			return p.Metric == telemetry.MetricRuns && p.Attrs[telemetry.AttrEnding] == "completed" && p.Value == 1
		})
	}, testkit.Patience, 50*time.Millisecond, "the run's ending reaches the collector as a metric")
	assert.True(t, slices.ContainsFunc(collector.Points(), func(p otlp.Point) bool {
		return p.Metric == telemetry.MetricCommandDuration && p.Attrs[telemetry.AttrBackend] == "bwrap" && p.Count > 0
	}), "the sandbox commands' durations, by backend")
}

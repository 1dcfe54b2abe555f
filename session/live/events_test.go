package live

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/scrub"
)

// TestOutputEvents: a command's output becomes events of whole lines, at
// most outputChunk bytes each, scrubbed; what is left is flushed.
func TestOutputEvents(t *testing.T) {
	t.Parallel()
	secret := "ghs_secretsecretsecret1234"
	long := strings.Repeat("x", outputChunk+10)
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{name: "lines together", writes: []string{"a\nb\n"}, want: []string{"a\nb\n"}},
		{name: "a line in pieces", writes: []string{"hel", "lo\nwor", "ld"}, want: []string{"hello\n", "world"}},
		{name: "a long line is cut", writes: []string{long + "\n"}, want: []string{long[:outputChunk], long[outputChunk:] + "\n"}},
		{name: "a secret split across writes is scrubbed", writes: []string{"token " + secret[:8], secret[8:] + " end\n"}, want: []string{"token " + scrub.Mark + " end\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), EventsFile)
			log, err := OpenEvents(path, scrub.New(secret), time.Now)
			require.NoError(t, err)
			out := log.Output(3)
			for _, w := range tt.writes {
				_, err := out.Write([]byte(w))
				require.NoError(t, err)
			}
			out.Flush()
			log.Close()
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			var got []string
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var e Event
				require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
				assert.Equal(t, EventOutput, e.Kind)
				assert.Equal(t, 3, e.Turn)
				got = append(got, e.Text)
			}
			assert.Equal(t, tt.want, got)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		})
	}
}

// TestListen: a listener sees every event added until Close, scrubbed
// and stamped, in order; the step fields reach the log's JSON inline.
func TestListen(t *testing.T) {
	t.Parallel()
	secret := "ghs_secretsecretsecret1234"
	path := filepath.Join(t.TempDir(), EventsFile)
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	log, err := OpenEvents(path, scrub.New(secret), func() time.Time { return at })
	require.NoError(t, err)
	var seen []Event
	log.Listen(func(e Event) { seen = append(seen, e) })
	zero := 0
	log.Add(Event{Kind: EventCommand, Turn: 2, Target: "go test ./... " + secret, Step: Step{DurationMS: Took(1500 * time.Millisecond), Exit: &zero, Backend: "bwrap"}})
	log.Add(Event{Kind: EventRequest, Turn: 2, Request: Request{Model: "m", InputTokens: 10, OutputTokens: 3}, Step: Step{DurationMS: 20}})
	log.Close()
	log.Add(Event{Kind: EventLand, Target: "after close"})
	require.Len(t, seen, 2)
	assert.Equal(t, at, seen[0].Time)
	assert.Equal(t, "go test ./... "+scrub.Mark, seen[0].Target)
	assert.Equal(t, at.Local().Format("15:04:05")+"  command go test ./... "+scrub.Mark+": exit 0, 1.5s (bwrap)", seen[0].String())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"duration_ms":1500,"exit":0,"backend":"bwrap"`)
	assert.Contains(t, lines[1], `"model":"m","input_tokens":10,"output_tokens":3`)
	assert.Equal(t, int64(1), Took(time.Microsecond), "a step that took any time keeps a duration")
}

// TestStepString: each step reads as one line of watch, with what it
// ended in and how long it took.
func TestStepString(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.Local)
	exit := 2
	cost := 0.002
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"request sent again", Event{Kind: EventRequest, Request: Request{Model: "coder", InputTokens: 900, OutputTokens: 30, Retries: 1, RequestCostUSD: &cost}, Step: Step{DurationMS: 1200}},
			"10:00:00  request coder: 900 in, 30 out, 1.2s, sent again once"},
		{"request failed", Event{Kind: EventRequest, Request: Request{Model: "coder", Retries: 5}, Step: Step{DurationMS: 40}, Text: "model endpoint x: 503 Service Unavailable after 6 attempts"},
			"10:00:00  request coder: 0 in, 0 out, 40ms, sent again 5 times: model endpoint x: 503 Service Unavailable after 6 attempts"},
		{"tool declined", Event{Kind: EventTool, Tool: "run_shell", Target: "rm -rf x", Text: "declined: the human operator did not approve this command", Step: Step{DurationMS: 3}},
			"10:00:00  tool run_shell rm -rf x: 3ms: declined: the human operator did not approve this command"},
		{"command at its limit", Event{Kind: EventCommand, Target: "go test ./...", Step: Step{DurationMS: 60000, Backend: "docker", Limit: "memory"}},
			"10:00:00  command go test ./...: no exit status, 1m0s (docker), stopped at its memory limit"},
		{"a check's run", Event{Kind: EventCommand, Target: "go vet ./...", Text: "on the result", Step: Step{DurationMS: 900, Exit: &exit, Backend: "bwrap"}},
			"10:00:00  command go vet ./...: exit 2, 900ms (bwrap): on the result"},
		{"check", Event{Kind: EventCheck, Step: Step{Check: "go vet ./...", Verdict: "regressed", DurationMS: 900}},
			"10:00:00  check go vet ./...: regressed (900ms on the result)"},
		{"deps", Event{Kind: EventDeps, Step: Step{Verdict: "failed", DurationMS: 2000}, Text: "registry.npmjs.org unreachable"},
			"10:00:00  dependencies: failed, 2s: registry.npmjs.org unreachable"},
		{"landed", Event{Kind: EventLand, Target: "core-session/s1 https://github.com/o/r/pull/7", Step: Step{DurationMS: 800}},
			"10:00:00  landed: core-session/s1 https://github.com/o/r/pull/7"},
		{"not landed", Event{Kind: EventLand, Text: "the branch moved"},
			"10:00:00  not landed: the branch moved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.e.Time = at
			assert.Equal(t, tt.want, tt.e.String())
		})
	}
}

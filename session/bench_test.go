package session

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/state"
)

// BenchmarkTurn measures the engine's own cost per turn beside a bare
// go-openai round trip with the same requests. The model answers instantly
// and every turn is a read_file of a small file. The engine's figure is the
// median time from one turn's end to the next's (OnStep marks each end)
// over a 40-turn session, so the clone and the landing are left out; the
// bare figure is the median round trip of the requests that session made,
// recorded by its model server and sent again through a plain go-openai
// client to a fresh server with the same script: the HTTP round trip and
// the JSON of the growing request, and nothing of the engine. Medians keep
// a busy machine's pauses out of both.
func BenchmarkTurn(b *testing.B) {
	const turns = 40
	repo := testkit.GitRepo(b, map[string]string{"small.go": strings.Repeat("// a line of a small Go file\n", 30)})
	script := func() []llm.Reply {
		replies := make([]llm.Reply, 0, turns+1)
		for range turns {
			replies = append(replies, llm.ContentReply("tool: read_file\npath: small.go"))
		}
		return append(replies, llm.ContentReply("tool: done\nsummary: read it"))
	}
	session := func() ([]time.Duration, uint64, []openai.ChatCompletionRequest) {
		srv := llm.NewModelServer(b, script()...)
		opts := testOptions(b, srv, repo)
		opts.Landing.DryRun = true
		opts.Limits.MaxTurns = turns + 1
		var ends []time.Time
		var before, after runtime.MemStats
		opts.Live.OnStep = func(st Step, _ int) {
			ends = append(ends, time.Now())
			switch st.Turn {
			case 1:
				runtime.ReadMemStats(&before)
			case turns:
				runtime.ReadMemStats(&after)
			}
		}
		rep, err := Run(b.Context(), opts)
		if err != nil || rep.Status != state.Completed {
			b.Fatalf("session: %v %+v", err, rep)
		}
		srv.Close()
		var ds []time.Duration
		for i := 1; i < turns; i++ {
			ds = append(ds, ends[i].Sub(ends[i-1]))
		}
		return ds, (after.Mallocs - before.Mallocs) / (turns - 1), srv.Requests()
	}
	bare := func(reqs []openai.ChatCompletionRequest) []time.Duration {
		srv := llm.NewModelServer(b, script()...)
		cfg := openai.DefaultConfig("")
		cfg.BaseURL = srv.URL + "/v1"
		client := openai.NewClientWithConfig(cfg)
		var ds []time.Duration
		for _, req := range reqs[:turns] {
			start := time.Now()
			if _, err := client.CreateChatCompletion(b.Context(), req); err != nil {
				b.Fatalf("bare round trip: %v", err)
			}
			ds = append(ds, time.Since(start))
		}
		srv.Close()
		// The first request of either side opens the connection; the
		// engine's turn times start after it.
		return ds[1:]
	}
	var engine, plain []time.Duration
	var allocs uint64
	for b.Loop() {
		d, a, reqs := session()
		engine = append(engine, d...)
		allocs += a
		plain = append(plain, bare(reqs)...)
	}
	e, p := median(engine), median(plain)
	b.ReportMetric(float64(e.Nanoseconds()), "ns/turn")
	b.ReportMetric(float64(p.Nanoseconds()), "bare-ns/turn")
	b.ReportMetric(float64(e)/float64(p), "engine/bare")
	b.ReportMetric(float64(allocs)/float64(b.N), "allocs/turn")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

// readingFiles is the repository of the reading session: twenty Go files of
// 5 to 14 KB.
func readingFiles() map[string]string {
	files := make(map[string]string, 20)
	for i := range 20 {
		size := 5<<10 + i*(9<<10)/19
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%02d\n\n", i)
		for n := 0; b.Len() < size; n++ {
			fmt.Fprintf(&b, "// Func%03d returns the %d-th value of file %d, for the <reading> bench & co.\nfunc Func%03d() int { return %d }\n\n", n, n, i, n, n*i)
		}
		files[fmt.Sprintf("pkg/file%02d.go", i)] = b.String()
	}
	return files
}

// readingFigures is what a reading session sent, measured on the requests
// the model server recorded.
type readingFigures struct {
	requests      int
	promptTokens  int     // the server's usage, summed
	wireBytes     int     // the messages' JSON, summed
	largestTokens int     // the largest request's estimate
	prefixMedian  float64 // median share of a request repeating the previous one's beginning
}

// readingSession runs the 40-turn reading session at a context budget: each
// of twenty files is read whole, then ten of its lines, then done.
func readingSession(tb testing.TB, contextTokens int) readingFigures {
	tb.Helper()
	files := readingFiles()
	repo := testkit.GitRepo(tb, files)
	var replies []llm.Reply
	for i := range 20 {
		p := fmt.Sprintf("pkg/file%02d.go", i)
		replies = append(replies,
			llm.ContentReply("tool: read_file\npath: "+p),
			llm.ContentReply("tool: read_file\npath: "+p+"\nstart_line: 10\nend_line: 20"))
	}
	replies = append(replies, llm.ContentReply("tool: done\nsummary: read them all"))
	srv := llm.NewModelServer(tb, replies...)
	opts := testOptions(tb, srv, repo)
	opts.Landing.DryRun = true
	opts.Limits.MaxTurns = len(replies)
	opts.Inference.ContextTokens = contextTokens
	rep, err := Run(tb.Context(), opts)
	if err != nil || rep.Status != state.Completed {
		tb.Fatalf("reading session: %v %+v", err, rep)
	}
	f := readingFigures{promptTokens: rep.Usage.PromptTokens}
	var prev []byte
	var shares []float64
	for _, req := range srv.Requests() {
		wire, err := json.Marshal(req.Messages)
		if err != nil {
			tb.Fatal(err)
		}
		f.requests++
		f.wireBytes += len(wire)
		f.largestTokens = max(f.largestTokens, budget.RequestEstimate(fromWire(req.Messages)))
		if prev != nil {
			n := 0
			for n < len(prev) && n < len(wire) && prev[n] == wire[n] {
				n++
			}
			shares = append(shares, float64(n)/float64(len(wire)))
		}
		prev = wire
	}
	slices.Sort(shares)
	if len(shares) > 0 {
		f.prefixMedian = (shares[(len(shares)-1)/2] + shares[len(shares)/2]) / 2
	}
	return f
}

// BenchmarkReadingSession runs the 40-turn reading session at the default
// budget and at 8192 and 4096, and prints what each sent.
func BenchmarkReadingSession(b *testing.B) {
	for _, budget := range []int{DefaultContextTokens, 8192, 4096} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
			var f readingFigures
			for b.Loop() {
				f = readingSession(b, budget)
			}
			b.ReportMetric(float64(f.promptTokens), "prompt-tokens")
			b.ReportMetric(float64(f.wireBytes), "wire-bytes")
			b.ReportMetric(float64(f.largestTokens), "largest-est")
			b.ReportMetric(f.prefixMedian, "prefix-median")
		})
	}
}

// BenchmarkContextWindow measures the context window's own cost per request
// over a 40-turn session with results of 3 KB: the estimate, the elision
// decisions and the prefix figures, without the HTTP round trip.
func BenchmarkContextWindow(b *testing.B) {
	obs := "Result of read_file:\n" + strings.Repeat("// a line of a Go file, forty bytes long\n", 75)
	for b.Loop() {
		w := budget.NewContextWindow(DefaultContextTokens)
		entries := []budget.Entry{
			{Role: "system", Content: strings.Repeat("the system prompt ", 250), Kind: budget.KindSystem},
			{Role: "user", Content: "the instruction", Kind: budget.KindInstruction},
		}
		for turn := 1; turn <= 40; turn++ {
			entries = append(entries,
				budget.Entry{Role: "assistant", Content: "tool: read_file\npath: f.go", Kind: budget.KindReply, Turn: turn},
				budget.Entry{Role: "user", Content: obs, Kind: budget.KindObservation, Turn: turn})
			_ = w.Request(entries)
			_ = w.Stats()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*40), "ns/request")
}

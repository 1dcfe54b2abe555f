package session

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
)

// BenchmarkTurn measures the engine's own cost per turn: the model answers
// instantly and every turn is a read_file of a small file. A session of 41
// turns and one of a single turn run side by side; their difference over 40
// is the cost of one turn, without the clone and the landing that every
// session pays once. The figure includes the HTTP round trip to the
// in-process model server and the growing request the transcript makes.
func BenchmarkTurn(b *testing.B) {
	const turns = 40
	repo := fixtureRepo(b, map[string]string{"small.go": strings.Repeat("// a line of a small Go file\n", 30)})
	session := func(n int) (time.Duration, uint64) {
		replies := make([]testkit.Reply, 0, n+1)
		for range n {
			replies = append(replies, testkit.ContentReply("tool: read_file\npath: small.go"))
		}
		replies = append(replies, testkit.ContentReply("tool: done\nsummary: read it"))
		srv := testkit.NewModelServer(b, replies...)
		opts := testOptions(b, srv, repo)
		opts.DryRun = true
		opts.MaxTurns = n + 1
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		rep, err := Run(b.Context(), opts)
		d := time.Since(start)
		runtime.ReadMemStats(&after)
		if err != nil || rep.Status != StatusDone {
			b.Fatalf("session: %v %+v", err, rep)
		}
		srv.Close()
		return d, after.Mallocs - before.Mallocs
	}
	var perTurn time.Duration
	var allocs float64
	for b.Loop() {
		short, shortAllocs := session(0)
		long, longAllocs := session(turns)
		perTurn += (long - short) / turns
		allocs += float64(longAllocs-shortAllocs) / turns
	}
	b.ReportMetric(float64(perTurn.Nanoseconds())/float64(b.N), "ns/turn")
	b.ReportMetric(allocs/float64(b.N), "allocs/turn")
}

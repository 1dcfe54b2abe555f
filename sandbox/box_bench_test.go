package sandbox

import (
	"os"
	"testing"
	"time"
)

// BenchmarkBoxTrue is a confined `true` in the workspace's box, side by side
// with a bare `true` and with the sandbox of its own each command had before
// boxes (NoBox), the three taking turns in each iteration so that a burst
// of load on a shared machine weighs on all of them: bench/box.sh prints the
// ratios. Target: the box at most 2x bare.
func BenchmarkBoxTrue(b *testing.B) {
	sb := New(Config{Home: b.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0]})
	defer sb.Close()
	if !sb.Probe(b.Context()).Usable {
		b.Skip("sandbox not usable here")
	}
	ws := b.TempDir()
	box, err := sb.Box(b.Context(), ws)
	if err != nil {
		b.Fatal(err)
	}
	opts := RunOptions{Workspace: ws}
	runs := []func() (Result, error){
		func() (Result, error) { return sb.RunHost(b.Context(), []string{"true"}, opts) },
		func() (Result, error) { return box.Run(b.Context(), []string{"true"}, opts) },
		func() (Result, error) {
			return sb.Run(b.Context(), []string{"true"}, RunOptions{Workspace: ws, NoBox: true})
		},
	}
	ms := takeTurns(b, runs)
	b.ReportMetric(ms[0], "bare-ms")
	b.ReportMetric(ms[1], "box-ms")
	b.ReportMetric(ms[2], "own-sandbox-ms")
	b.ReportMetric(ms[1]/ms[0], "box/bare")
	b.ReportMetric(ms[2]/ms[1], "own/box")
}

// takeTurns runs each of runs once before the clock (a box restarts when
// its first command needs more than it bound at its start), then once per
// iteration, starting with another each time, so that a burst of load on a
// shared machine weighs on all of them; it returns the mean time of each,
// in milliseconds.
func takeTurns(b *testing.B, runs []func() (Result, error)) []float64 {
	b.Helper()
	check := func(r Result, err error) {
		if err != nil || r.ExitCode != 0 {
			b.Fatal(err, r.Output)
		}
	}
	for _, run := range runs {
		check(run())
	}
	total := make([]time.Duration, len(runs))
	n := 0
	for b.Loop() {
		for j := range runs {
			k := (j + n) % len(runs)
			start := time.Now()
			r, err := runs[k]()
			total[k] += time.Since(start)
			check(r, err)
		}
		n++
	}
	ms := make([]float64, len(runs))
	for i, d := range total {
		ms[i] = float64(d) / float64(max(n, 1)) / 1e6
	}
	return ms
}

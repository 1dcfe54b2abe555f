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
	for _, run := range runs {
		// Once before the clock: a box restarts when its first command
		// needs more than it bound at its start.
		if r, err := run(); err != nil || r.ExitCode != 0 {
			b.Fatal(err, r.Output)
		}
	}
	total := make([]time.Duration, len(runs))
	n := 0
	for b.Loop() {
		for j := range runs {
			k := (j + n) % len(runs)
			start := time.Now()
			r, err := runs[k]()
			total[k] += time.Since(start)
			if err != nil || r.ExitCode != 0 {
				b.Fatal(err, r.Output)
			}
		}
		n++
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(n) / 1e6 }
	b.ReportMetric(ms(total[0]), "bare-ms")
	b.ReportMetric(ms(total[1]), "box-ms")
	b.ReportMetric(ms(total[2]), "own-sandbox-ms")
	b.ReportMetric(float64(total[1])/float64(total[0]), "box/bare")
	b.ReportMetric(float64(total[2])/float64(total[1]), "own/box")
}

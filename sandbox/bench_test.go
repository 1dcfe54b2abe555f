package sandbox

import (
	"os"
	"testing"
	"time"
)

// The sandbox's cost, side by side with the bare command and with a minimal
// bwrap (--unshare-all --ro-bind / /) in one run: bench/sandbox.sh prints the
// ratios. Targets: confined true at most 1.3x the minimal bwrap, under
// 1.10x for a warm go test. bwrap-profile runs bwrap with core's own
// arguments for true (its mounts and masks) but without the gate, the
// cgroups and the filter: the part of the cost that is bwrap's.

func BenchmarkTrue(b *testing.B) {
	sb := New(Config{Home: b.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH")})
	if !sb.Probe(b.Context()).Usable {
		b.Skip("sandbox not usable here")
	}
	ws := b.TempDir()
	opts := RunOptions{Workspace: ws}
	bwrap := sb.Probe(b.Context()).Bwrap
	p, err := sb.profileFor("true")
	if err != nil {
		b.Fatal(err)
	}
	p.workspace, p.seccomp = ws, false
	bare := func() (Result, error) { return sb.RunHost(b.Context(), []string{"true"}, opts) }
	minimal := func() (Result, error) {
		return execute(b.Context(), bwrap, []string{"--unshare-all", "--ro-bind", "/", "/", "true"}, []string{}, opts, nil)
	}
	profiled := func() (Result, error) {
		return execute(b.Context(), bwrap, p.args([]string{"true"}), []string{}, opts, nil)
	}
	sandboxed := func() (Result, error) { return sb.Run(b.Context(), []string{"true"}, opts) }
	check := func(b *testing.B, r Result, err error) {
		if err != nil || r.ExitCode != 0 {
			b.Fatal(err, r.Output)
		}
	}
	for _, bm := range []struct {
		name string
		run  func() (Result, error)
	}{{"bare", bare}, {"bwrap-minimal", minimal}, {"bwrap-profile", profiled}, {"sandboxed", sandboxed}} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				r, err := bm.run()
				check(b, r, err)
			}
		})
	}
	// The same, the three bwrap runs taking turns in each iteration, so
	// that a burst of load on a shared machine weighs on all of them.
	b.Run("interleaved", func(b *testing.B) {
		ms := takeTurns(b, []func() (Result, error){minimal, profiled, sandboxed})
		b.ReportMetric(ms[0], "minimal-ms")
		b.ReportMetric(ms[1], "profile-ms")
		b.ReportMetric(ms[2], "sandboxed-ms")
		b.ReportMetric(ms[2]/ms[0], "ratio")
	})
}

func BenchmarkGoTest(b *testing.B) {
	home := b.TempDir()
	proxy := fileProxy(b)
	ws := goModule(b, proxy)
	sb := New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
	if !sb.Probe(b.Context()).Usable {
		b.Skip("sandbox not usable here")
	}
	argv := []string{"go", "test", "-count=1", "./..."} // warm build cache, tests rerun
	opts := RunOptions{Workspace: ws, Timeout: 5 * time.Minute}
	run := map[string]func() (Result, error){
		"bare":      func() (Result, error) { return sb.RunHost(b.Context(), argv, opts) },
		"sandboxed": func() (Result, error) { return sb.Run(b.Context(), argv, opts) },
	}
	for _, name := range []string{"bare", "sandboxed"} {
		// Warm each side's own build cache (and the module download) first.
		if r, err := run[name](); err != nil || r.ExitCode != 0 {
			b.Fatal(err, r.Output)
		}
	}
	for _, name := range []string{"bare", "sandboxed"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if r, err := run[name](); err != nil || r.ExitCode != 0 {
					b.Fatal(err, r.Output)
				}
			}
		})
	}
}

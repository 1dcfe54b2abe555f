package sandbox

import (
	"os"
	"testing"
	"time"
)

// The sandbox's cost, side by side with the bare command and with a minimal
// bwrap (--unshare-all --ro-bind / /) in one run: bench/sandbox.sh prints the
// ratios. Targets: under 5 ms added per command,
// under 1.10x for a warm go test.

func BenchmarkTrue(b *testing.B) {
	sb := New(Config{Home: b.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH")})
	if !sb.Probe(b.Context()).Usable {
		b.Skip("sandbox not usable here")
	}
	ws := b.TempDir()
	opts := RunOptions{Workspace: ws}
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			r, err := sb.RunHost(b.Context(), []string{"true"}, opts)
			if err != nil || r.ExitCode != 0 {
				b.Fatal(err, r.Output)
			}
		}
	})
	bwrap := sb.Probe(b.Context()).Bwrap
	b.Run("bwrap-minimal", func(b *testing.B) {
		argv := []string{"--unshare-all", "--ro-bind", "/", "/", "true"}
		for b.Loop() {
			r, err := execute(b.Context(), bwrap, argv, []string{}, opts, nil)
			if err != nil || r.ExitCode != 0 {
				b.Fatal(err, r.Output)
			}
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		for b.Loop() {
			r, err := sb.Run(b.Context(), []string{"true"}, opts)
			if err != nil || r.ExitCode != 0 {
				b.Fatal(err, r.Output)
			}
		}
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

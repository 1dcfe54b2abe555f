package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/sandbox/lang"
)

// compileHeavyModule is a module of n packages whose compile takes far
// longer than their tests: the case of a large repository's baseline.
func compileHeavyModule(n int) map[string]string {
	files := map[string]string{"go.mod": "module example.com/heavy\n\ngo 1.24\n"}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "// Package p%02d computes.\npackage p%02d\n\nimport \"strconv\"\n\n", i, i)
		for f := range 150 {
			fmt.Fprintf(&b, "// F%d computes.\nfunc F%d(x int) string {\n\ts := 0\n\tfor i := range x {\n\t\tswitch i %% 7 {\n\t\tcase 0:\n\t\t\ts += i * %d\n\t\tcase 1, 2:\n\t\t\ts -= i\n\t\tdefault:\n\t\t\ts ^= i << 2\n\t\t}\n\t}\n\treturn strconv.Itoa(s) + %q\n}\n\n", f, f, f+1, fmt.Sprint(f))
		}
		files[fmt.Sprintf("p%02d/p.go", i)] = b.String()
		files[fmt.Sprintf("p%02d/p_test.go", i)] = fmt.Sprintf("package p%02d\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F1(3) == \"\" {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n", i)
	}
	return files
}

// BenchmarkBaselineAtWorkspacePath is the contract's baseline, go test
// ./... on a checkout of the start commit in a sandbox of its own, once
// the warm-up compiled the start commit in the workspace: seen at the
// workspace's path (RunOptions.MountAt, as the contract runs it), beside
// the same seen at its own path (as it ran before), taking turns, each in
// a fresh checkout.
func BenchmarkBaselineAtWorkspacePath(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	files := compileHeavyModule(12)
	checkout := func() string {
		dir := filepath.Join(b.TempDir(), "ws")
		for name, body := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		return dir
	}
	sb := New(Config{Home: b.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), CacheProg: self, Repo: "bench/heavy"})
	if !sb.Probe(b.Context()).Usable {
		b.Skip("sandbox not usable here")
	}
	sb.foregroundWarm = true
	ws := checkout()
	w := sb.Warm(b.Context(), ws)
	if w == nil {
		b.Fatal("no warm-up")
	}
	if r := w.Result(); r.Err != nil || r.ExitCode != 0 {
		b.Fatalf("warm-up: %v\n%s", r.Err, r.Output)
	}
	baseline := func(mountAt string) time.Duration {
		base := checkout()
		start := time.Now()
		r, err := sb.Verify(b.Context(), lang.TierTest, []string{"go", "test", "./..."}, RunOptions{Workspace: base, MountAt: mountAt, NoBox: true, Timeout: 10 * time.Minute})
		took := time.Since(start)
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("baseline: %v\n%s", err, r.Output)
		}
		return took
	}
	var at, own []time.Duration
	for b.Loop() {
		at = append(at, baseline(ws))
		own = append(own, baseline(""))
	}
	med := func(ds []time.Duration) time.Duration {
		s := slices.Sorted(slices.Values(ds))
		return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
	}
	a, o := med(at), med(own)
	b.ReportMetric(float64(a.Milliseconds()), "at-workspace-ms")
	b.ReportMetric(float64(o.Milliseconds()), "own-path-ms")
	b.ReportMetric(float64(a)/float64(o), "ratio")
}

package session

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/state"
)

// The verify benchmarks set a session's timing beside a person's, each
// side interleaved with the other, iteration by iteration, so that a busy
// machine weighs on both alike; each reports medians. They use the real
// sandbox as the command line sets it up (the user's caches, read through
// `core sandbox gocache`): CORE_BENCH_CORE names a built core binary
// (bench/verify.sh builds one); without it, confined builds use core's own
// caches alone. They skip without a usable sandbox.

// benchSandbox returns the sandbox of a session on repo, as the command line
// makes it, with its state in home.
func benchSandbox(b *testing.B, home, repo string) *sandbox.Sandbox {
	b.Helper()
	cfg, err := sandbox.ConfigFromEnv(home, os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Mode = sandbox.ModeBwrap
	cfg.CacheProg = os.Getenv("CORE_BENCH_CORE")
	cfg.Repo = repo
	sb := sandbox.New(cfg)
	if !sb.Probe(b.Context()).Usable {
		b.Skip("sandbox not usable here")
	}
	return sb
}

// byHand runs a person's command in dir, failing the benchmark on an
// error. It runs in a session of its own, as a command typed at a terminal
// does and as a confined one does (bwrap --new-session): where the kernel
// shares the CPUs by session first (autogroup), one in the benchmark's own
// session would share its slice with everything else this process runs.
func byHand(b *testing.B, dir string, argv ...string) {
	b.Helper()
	cmd := exec.CommandContext(b.Context(), argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// fixModule is a small module (a store and an HTTP handler over it, with
// their tests) whose store has a bug its test finds; fixed is the store
// without it.
func fixModule() (files map[string]string, fixed string) {
	store := "// Package store keeps values by name.\npackage store\n\nimport \"sync\"\n\n// Store is a map safe for concurrent use.\ntype Store struct {\n\tmu sync.Mutex\n\tm  map[string]string\n}\n\n// New returns an empty store.\nfunc New() *Store { return &Store{m: map[string]string{}} }\n\n// Put sets name.\nfunc (s *Store) Put(name, v string) { s.mu.Lock(); s.m[name] = v; s.mu.Unlock() }\n\n// Get returns name's value.\nfunc (s *Store) Get(name string) (string, bool) {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\tv, ok := s.m[%s]\n\treturn v, ok\n}\n"
	files = map[string]string{
		"go.mod":              "module example.com/std\n\ngo 1.24\n",
		"store/store.go":      fmt.Sprintf(store, `name+"!"`),
		"store/store_test.go": "package store\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestPutGet(t *testing.T) {\n\ts := New()\n\tfor i := range 100 {\n\t\ts.Put(fmt.Sprint(i), fmt.Sprint(i*i))\n\t}\n\tif v, _ := s.Get(\"9\"); v != \"81\" {\n\t\tt.Fatalf(\"got %q\", v)\n\t}\n}\n",
		"api/api.go":          "// Package api serves items as JSON.\npackage api\n\nimport (\n\t\"encoding/json\"\n\t\"net/http\"\n\t\"strings\"\n\n\t\"example.com/std/store\"\n)\n\n// Handler serves the store.\nfunc Handler(s *store.Store) http.Handler {\n\tmux := http.NewServeMux()\n\tmux.HandleFunc(\"/items/\", func(w http.ResponseWriter, r *http.Request) {\n\t\tname := strings.TrimPrefix(r.URL.Path, \"/items/\")\n\t\tv, ok := s.Get(name)\n\t\tif !ok {\n\t\t\thttp.NotFound(w, r)\n\t\t\treturn\n\t\t}\n\t\tjson.NewEncoder(w).Encode(map[string]string{\"name\": name, \"value\": v})\n\t})\n\treturn mux\n}\n",
		"api/api_test.go":     "package api\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n\n\t\"example.com/std/store\"\n)\n\nfunc TestMissing(t *testing.T) {\n\tsrv := httptest.NewServer(Handler(store.New()))\n\tdefer srv.Close()\n\tres, err := http.Get(srv.URL + \"/items/a\")\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tres.Body.Close()\n\tif res.StatusCode != http.StatusNotFound {\n\t\tt.Fatalf(\"status %d\", res.StatusCode)\n\t}\n}\n",
		"README":              "std\n",
	}
	return files, fmt.Sprintf(store, "name")
}

// BenchmarkVerifySession is a whole `--verify test` session on a small
// module, the scripted model fixing a bug (write_file, go test ./...,
// done: the warm-up, the model's go test, the contract's baseline and
// result, the landing into the local repository), beside the same by hand:
// git clone, the edit, go test ./..., git commit; and beside the same with
// the checks the contract runs (go test ./... on the start commit first).
// Beside the whole session it reports the part until the model's done,
// before the contract's checks and the landing.
func BenchmarkVerifySession(b *testing.B) {
	files, fixed := fixModule()
	repo := testkit.GitRepo(b, files)
	home := b.TempDir()
	sb := benchSandbox(b, home, repo)
	type took struct{ wall, toDone time.Duration }
	session := func() took {
		srv := llm.NewModelServer(b,
			llm.ContentReply(write("store/store.go", fixed)),
			llm.ContentReply("tool: run_shell\ncommand: go test ./..."),
			llm.ContentReply("tool: done\nsummary: fixed the lookup"),
		)
		opts := testOptions(b, srv, repo)
		opts.Services.Sandbox, opts.Verification.Verify = sb, lang.TierTest
		var toDone time.Duration
		start := time.Now()
		opts.Live.OnStep = func(st Step, _ int) {
			if st.Tool == "done" {
				toDone = time.Since(start)
			}
		}
		rep, err := Run(b.Context(), opts)
		t := took{wall: time.Since(start), toDone: toDone}
		if err != nil || rep.Status != state.Completed || rep.Contract == nil || !rep.Contract.Held() || toDone == 0 {
			b.Fatalf("session: %v %+v", err, rep)
		}
		srv.Close()
		return t
	}
	// by hand, as the target has it; redGreen also runs the tests on the
	// start commit first (red, then green after the edit), the checks the
	// session's contract runs.
	hand := func(redGreen bool) took {
		dir := filepath.Join(b.TempDir(), "clone")
		start := time.Now()
		byHand(b, "", "git", "clone", "-q", repo, dir)
		if redGreen {
			cmd := exec.CommandContext(b.Context(), "go", "test", "./...")
			cmd.Dir = dir
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if out, err := cmd.CombinedOutput(); err == nil {
				b.Fatalf("the start commit's tests passed:\n%s", out)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "store", "store.go"), []byte(fixed), 0o644); err != nil {
			b.Fatal(err)
		}
		byHand(b, dir, "go", "test", "./...")
		byHand(b, dir, "git", "-c", "user.name=p", "-c", "user.email=p@example.com", "commit", "-qam", "fix the lookup")
		return took{wall: time.Since(start)}
	}
	// Warm both: the person has tested this module before; core has run a
	// session on it (its walk, the repository's shared layer).
	hand(true)
	session()
	var core, person, checked []took
	for b.Loop() {
		person = append(person, hand(false))
		core = append(core, session())
		checked = append(checked, hand(true))
	}
	field := func(ts []took, f func(took) time.Duration) time.Duration {
		ds := make([]time.Duration, len(ts))
		for i, t := range ts {
			ds[i] = f(t)
		}
		return median(ds)
	}
	wall := func(t took) time.Duration { return t.wall }
	c, p, rg := field(core, wall), field(person, wall), field(checked, wall)
	toDone := field(core, func(t took) time.Duration { return t.toDone })
	b.ReportMetric(float64(c.Milliseconds()), "session-ms")
	b.ReportMetric(float64(p.Milliseconds()), "hand-ms")
	b.ReportMetric(float64(c)/float64(p), "ratio")
	b.ReportMetric(float64(rg.Milliseconds()), "red-green-ms")
	b.ReportMetric(float64(c)/float64(rg), "ratio-red-green")
	b.ReportMetric(float64(toDone.Milliseconds()), "to-done-ms")
	b.ReportMetric(float64(toDone)/float64(p), "ratio-to-done")
}

// manyPackages is a module of n packages, each importing the two before it
// and some of the standard library, with a test each.
func manyPackages(n int) map[string]string {
	files := map[string]string{"go.mod": "module example.com/many\n\ngo 1.24\n", "README": "many\n"}
	for i := range n {
		imports := []string{`"encoding/json"`, `"fmt"`, `"strings"`}
		calls := []string{}
		for _, j := range []int{i - 1, i - 2} {
			if j >= 0 {
				imports = append(imports, fmt.Sprintf(`"example.com/many/p%03d"`, j))
				calls = append(calls, fmt.Sprintf("p%03d.Name(s)", j))
			}
		}
		body := fmt.Sprintf("// Package p%03d is one of many.\npackage p%03d\n\nimport (\n\t%s\n)\n\n// Name names s.\nfunc Name(s string) string {\n\tb, _ := json.Marshal(map[string]string{\"s\": strings.ToUpper(s)})\n\treturn fmt.Sprint(len(b)) + %q%s\n}\n",
			i, i, strings.Join(imports, "\n\t"), fmt.Sprintf("p%03d", i), joinCalls(calls))
		files[fmt.Sprintf("p%03d/p.go", i)] = body
		files[fmt.Sprintf("p%03d/p_test.go", i)] = fmt.Sprintf("package p%03d\n\nimport \"testing\"\n\nfunc TestName(t *testing.T) {\n\tif Name(\"x\") == \"\" {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n", i)
	}
	return files
}

func joinCalls(calls []string) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString(" + " + c)
	}
	return b.String()
}

// BenchmarkNarrowTestAtStart is the model's first command, a go test of
// one package, at the start of a session on a module of 60 packages (the
// warm-up of the whole module starting beside it), beside the same go test
// bare, in a fresh clone, with the user's caches warm. The session's
// figure is the turn's (OnStep): the model's reply, instant here, and the
// command.
func BenchmarkNarrowTestAtStart(b *testing.B) {
	const pkg = "./p004/"
	repo := testkit.GitRepo(b, manyPackages(60))
	home := b.TempDir()
	sb := benchSandbox(b, home, repo)
	session := func() time.Duration {
		srv := llm.NewModelServer(b,
			llm.ContentReply("tool: run_shell\ncommand: go test "+pkg),
			llm.ContentReply("tool: done\nsummary: tested"),
		)
		opts := testOptions(b, srv, repo)
		opts.Services.Sandbox, opts.Verification.Verify, opts.Landing.DryRun = sb, lang.TierTest, true
		var first time.Duration
		opts.Live.OnStep = func(st Step, _ int) {
			if st.Turn == 1 {
				first = st.Duration
			}
		}
		rep, err := Run(b.Context(), opts)
		if err != nil || rep.Status != state.Completed || first == 0 {
			b.Fatalf("session: %v %+v", err, rep)
		}
		srv.Close()
		return first
	}
	hand := func() time.Duration {
		dir := filepath.Join(b.TempDir(), "clone")
		byHand(b, "", "git", "clone", "-q", repo, dir)
		start := time.Now()
		byHand(b, dir, "go", "test", pkg)
		return time.Since(start)
	}
	// The user's caches are warm: they have tested this package before.
	hand()
	session()
	var core, person []time.Duration
	for b.Loop() {
		person = append(person, hand())
		core = append(core, session())
	}
	c, p := median(core), median(person)
	b.ReportMetric(float64(c.Milliseconds()), "session-ms")
	b.ReportMetric(float64(p.Milliseconds()), "bare-ms")
	b.ReportMetric(float64(c)/float64(p), "ratio")
}

// BenchmarkWarmGoTest is a warm confined go test -count=1 ./... of the
// small module beside the same bare, taking turns.
func BenchmarkWarmGoTest(b *testing.B) {
	files, fixed := fixModule()
	files["store/store.go"] = fixed
	repo := testkit.GitRepo(b, files)
	sb := benchSandbox(b, b.TempDir(), repo)
	argv := []string{"go", "test", "-count=1", "./..."} // warm build cache, tests rerun
	opts := sandbox.RunOptions{Workspace: repo, Timeout: 5 * time.Minute}
	sides := []func(){
		func() { byHand(b, repo, argv...) },
		func() {
			if r, err := sb.Run(b.Context(), argv, opts); err != nil || r.ExitCode != 0 {
				b.Fatalf("go test: %v\n%s", err, r.Output)
			}
		},
	}
	once := func(run func()) time.Duration {
		start := time.Now()
		run()
		return time.Since(start)
	}
	for _, run := range sides { // each side's build cache warm first
		once(run)
	}
	var took [2][]time.Duration
	for b.Loop() {
		for i, run := range sides {
			took[i] = append(took[i], once(run))
		}
	}
	bare, confined := median(took[0]), median(took[1])
	b.ReportMetric(float64(bare.Milliseconds()), "bare-ms")
	b.ReportMetric(float64(confined.Milliseconds()), "confined-ms")
	b.ReportMetric(float64(confined)/float64(bare), "ratio")
}

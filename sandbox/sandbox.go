// Package sandbox runs verification commands confined by bubblewrap.
//
// A live probe shows whether bwrap works here with the exact production
// profile; the tier policy (lang.Check, in sandbox/lang) says which commands
// an unattended run may verify with; Run and Verify run one command,
// confined when they must be, with a scrubbed environment, a timeout that
// kills the whole process group, and capped output.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/mask"
)

// Sandbox runs commands under the production profile. It probes bwrap once,
// on first need, and caches the answer. Safe for concurrent use.
type Sandbox struct {
	cfg Config

	probeOnce sync.Once
	probed    ProbeResult

	seccompOnce [2]sync.Once // [production, network]
	seccompProg [2][]byte
	seccompErr  [2]error

	scans *mask.Cache // the walks behind the masks: the process's own

	cgOnce    sync.Once
	cgParents limit.CgroupParents

	runs *gocache.Layers // the run layers this Sandbox made

	userOnce  sync.Once
	user      gocache.UserCaches
	viaDocker atomic.Bool // the probe went to the Docker backend: core's own caches
	// noCacheProg is set once core's executable failed to serve the build
	// cache inside: confined builds go on with the run's layer.
	noCacheProg atomic.Bool

	// foregroundWarm runs the warm-up's compile at the commands' priority:
	// for the tests that wait for a warm-up to end, which a background one
	// on a machine busy with other tests may not do for long.
	foregroundWarm bool

	// yield makes the background commands' cpu cgroups idle while a
	// foreground command runs (sandbox/limit/yield.go).
	yield limit.Yielder

	// steps drives the dependency steps (depsrun.go): what they
	// resolved, fetched and failed with, once per lockfile.
	steps deps.Steps
	// downloads is which workspaces have their Go modules downloaded,
	// and the download under way of each (download.go).
	downloads deps.Downloads

	mu       sync.Mutex
	views    map[string]toolView // tool → what its commands see of the host
	warming  map[string]*Warmup  // workspace → its warm-up while it runs (warm.go)
	boxes    map[string]*Box     // workspace → its box (box.go)
	boxSweep sync.Once           // the box directories of killed cores (box.go)

	hostsOnce sync.Once
	hosts     string // the sandbox's /etc/hosts (hostsFile)

	telemetryOnce sync.Once
	telemetry     string // the go command's telemetry mode inside (telemetryFile)
}

// New returns a Sandbox for cfg.
func New(cfg Config) *Sandbox {
	if cfg.Mode == "" {
		cfg.Mode = ModeAuto
	}
	cfg.Limits = cfg.Limits.WithDefaults()
	if cfg.DownloadTimeout <= 0 {
		cfg.DownloadTimeout = DefaultDownloadTimeout
	}
	s := &Sandbox{cfg: cfg, scans: mask.Host(), views: map[string]toolView{}}
	s.runs = gocache.NewLayers(s, cfg.Home)
	return s
}

// Mode returns the sandbox mode.
func (s *Sandbox) Mode() Mode { return s.cfg.Mode }

// Probe runs the live probe once per Sandbox and returns its cached answer.
// In ModeOff it probes all the same: the answer is still worth telling.
func (s *Sandbox) Probe(ctx context.Context) ProbeResult {
	s.probeOnce.Do(func() {
		// bwrap's scratch workspace goes in the system temporary
		// directory, so that probing leaves $CORE_HOME as it is; a sibling
		// container's must lie under a mount of core's container, as
		// $CORE_HOME does.
		s.probed = s.choose(ctx, "", filepath.Join(s.cfg.Home, "tmp"))
	})
	return s.probed
}

// ProbeIn runs the live probe afresh with its scratch workspace under dir.
func (s *Sandbox) ProbeIn(ctx context.Context, dir string) ProbeResult {
	return s.choose(ctx, dir, "")
}

// Usable reports whether commands will run confined. In ModeOff it is
// false without probing; in ModeAuto it is the probe's answer; in ModeBwrap
// a failed probe is an error.
func (s *Sandbox) Usable(ctx context.Context) (bool, error) {
	switch s.cfg.Mode {
	case ModeOff:
		return false, nil
	case ModeBwrap, ModeDocker:
		p := s.Probe(ctx)
		if !p.Usable {
			return false, fmt.Errorf("CORE_SESSION_SANDBOX=%s: %w", s.cfg.Mode, p.Err())
		}
		return true, nil
	}
	return s.Probe(ctx).Usable, nil
}

// Require checks, before a run starts, that the tier can be honoured: the
// test tier runs workspace code and needs a usable sandbox.
func (s *Sandbox) Require(ctx context.Context, tier lang.Tier) error {
	if tier != lang.TierTest && s.cfg.Mode != ModeBwrap {
		return nil // nothing to require, and nothing probed for it
	}
	usable, err := s.Usable(ctx)
	if err != nil {
		return err
	}
	if tier != lang.TierTest || usable {
		return nil
	}
	if s.cfg.Mode == ModeOff {
		return errors.New("the test tier runs workspace code and needs the sandbox, but CORE_SESSION_SANDBOX=off: verify with build, or let the sandbox run (unset CORE_SESSION_SANDBOX)")
	}
	return fmt.Errorf("the test tier runs workspace code and needs the sandbox: %w; verify with build, or fix the sandbox (core sandbox probe)", s.Probe(ctx).Err())
}

// RunOptions says how to run one command.
type RunOptions struct {
	// Workspace is the working directory: the only writable place inside the
	// sandbox besides /tmp and the build cache. Empty means the current
	// directory.
	Workspace string
	// Timeout kills the command's whole process group when it runs out.
	// Zero means no limit beyond ctx.
	Timeout time.Duration
	// BuildCeiling, when more than Timeout, lets the command compile
	// beyond its Timeout: the time a compiler runs among its processes
	// does not count against Timeout, and BuildCeiling bounds the whole
	// run (sandbox/boxagent/buildtime.go). Zero, or no more than Timeout, counts every
	// moment against Timeout.
	BuildCeiling time.Duration
	// OutputLimit is how many bytes of combined output to keep (head and
	// tail); zero means output.DefaultLimit.
	OutputLimit int
	// Progress, when set, also receives the output as it comes, uncapped
	// (a heartbeat shows its last line; a person sees what they approved).
	Progress io.Writer
	// Background runs the command at a low CPU priority: work done ahead
	// of need (the warm-up's compile and its module download), which
	// yields the CPUs to the commands someone waits for and takes them
	// when idle. Under bwrap it runs in a cpu cgroup of its own where core
	// may make one, idle while a foreground command of the Sandbox runs
	// (sandbox/limit/yield.go), else at nice 10 with its session; in a container with
	// the fewest CPU shares. The contract's baselines are not background:
	// done waits for them.
	Background bool
	// NoBox runs the command in a sandbox of its own, as before boxes: none
	// of the run's earlier processes is there (the contract's baseline and
	// final runs).
	NoBox bool
	// MountAt, with NoBox, is where the command sees the workspace (and
	// works) instead of at its own path: an absolute, clean path. The
	// contract's baseline mounts the start commit's checkout where the
	// run's workspace is, so that its go commands key each package's
	// compile as the warm-up's did (the go command keys it by the
	// package's directory) and find it in the repository's shared layer.
	// Nothing else changes: the run's layer, the module view and every
	// check of the workspace's files are the checkout's own.
	MountAt string

	// deps is what the command sees of the dependencies fetched for it.
	deps deps.View
}

// Result is what running a command produced. A non-zero exit is a result,
// not an error.
type Result struct {
	Argv []string
	// ExitCode is the command's exit status; -1 when a signal or the timeout
	// ended it.
	ExitCode int
	// Output is the combined stdout and stderr, capped: the head and the tail
	// are kept and a line in the middle says how much was cut.
	Output string
	// Cut is the number of bytes left out of Output.
	Cut       int64
	Duration  time.Duration
	Sandboxed bool
	TimedOut  bool
	// Built is how long a compiler ran among the command's processes,
	// time its Timeout did not count (RunOptions.BuildCeiling); AtCeiling
	// is set when the build ceiling, not the timeout, stopped it.
	Built     time.Duration
	AtCeiling bool
	// Limit names the sandbox limit that stopped the command (limit.LimitMemory,
	// limit.LimitProcesses, …), or is empty; Output then ends with a line that
	// says how to raise it.
	Limit string
	// Waited is how long the command waited, before it started, for the
	// module download another command had under way (the warm-up's); its
	// Timeout counted only after.
	Waited time.Duration
	// Setup is set when the command itself never ran because core's
	// preparation for it failed or ran past its own timeout (the module
	// download); Output says which.
	Setup bool
	// Deps, when set, is why the dependency step fetched nothing for a
	// reason of the environment's, not the code's: a *deps.Unreachable
	// when a registry could not be reached. The command ran without its
	// dependencies; Output begins with the step's note.
	Deps error
}

// RefusedError says that a command may not run unattended, and why. The
// model can do something about it, so it is an observation, not a failure.
type RefusedError struct {
	Argv   []string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused %q: %s", strings.Join(e.Argv, " "), e.Reason)
}

// Run runs argv confined under the production profile, whatever the tier.
// It fails when the sandbox is not usable. It never waits for the
// workspace's warm-up (Warm): it builds what it needs beside it, sharing the
// run's build cache.
func (s *Sandbox) Run(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	if len(argv) == 0 {
		return Result{}, errors.New("no command to run")
	}
	ws, err := s.workspace(opts.Workspace)
	if err != nil {
		return Result{}, err
	}
	opts.Workspace = ws
	if err := opts.checkMount(); err != nil {
		return Result{}, err
	}
	return s.run(ctx, argv, opts)
}

// inside is where the command sees its workspace: MountAt, else the
// workspace's own path.
func (o RunOptions) inside() string {
	if o.MountAt != "" {
		return o.MountAt
	}
	return o.Workspace
}

// checkMount refuses a MountAt that is not an absolute, clean path other
// than the root, or one without NoBox (a box sees its run's workspace where
// it is).
func (o RunOptions) checkMount() error {
	if o.MountAt == "" {
		return nil
	}
	if !o.NoBox {
		return errors.New("a workspace mounted elsewhere (MountAt) needs a sandbox of its own (NoBox)")
	}
	if !filepath.IsAbs(o.MountAt) || filepath.Clean(o.MountAt) != o.MountAt || o.MountAt == "/" {
		return fmt.Errorf("the workspace cannot be mounted at %q: give an absolute, clean path other than /", o.MountAt)
	}
	return nil
}

// run is Run on a resolved workspace; the warm-up runs through it too.
func (s *Sandbox) run(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	// The run's build cache layer goes when the Sandbox does (gocache/layers.go):
	// not before the command is over.
	defer runtime.KeepAlive(s)
	if s.cfg.Mode == ModeOff {
		return Result{}, errors.New("CORE_SESSION_SANDBOX=off: nothing runs confined")
	}
	p := s.Probe(ctx)
	if !p.Usable {
		return Result{}, p.Err()
	}
	if !opts.Background {
		defer s.yield.Start()() // someone waits for it
	}
	bwrap := ""
	if p.Backend == BackendBwrap {
		bwrap = p.Bwrap
	}
	var waited time.Duration
	if argv[0] == "go" {
		// The download is confined by bwrap when bwrap is the backend; under
		// the Docker backend (no namespaces here) it runs on the host, from
		// validated copies of the module files in a scratch directory.
		r, ok, err := s.downloadModules(ctx, bwrap, opts)
		if err != nil || !ok {
			r.Argv = argv
			r.Sandboxed = true // nothing ran on the host: the download is confined too
			r.Setup = true
			return r, err
		}
		waited = r.Waited
	} else {
		// The other ecosystems' dependency step (depsrun.go); what it could
		// not fetch heads the command's output.
		deps, err := s.fetchDeps(ctx, p.chosen(), bwrap, argv, opts)
		if err != nil {
			return Result{Argv: argv, ExitCode: -1, Sandboxed: true, Setup: true}, err
		}
		opts.deps = deps
	}
	r, err := p.chosen().run(ctx, argv, opts)
	if opts.deps.Note != "" {
		r.Output = opts.deps.Note + r.Output
	}
	r.Deps = opts.deps.Err
	r.Waited = waited
	return r, err
}

// Verify runs argv unattended if the tier allows it: confined whenever the
// sandbox is usable, on the host only for commands that run no workspace
// code. A command the tier does not allow returns a *RefusedError. As Run,
// it never waits for the workspace's warm-up.
func (s *Sandbox) Verify(ctx context.Context, tier lang.Tier, argv []string, opts RunOptions) (Result, error) {
	ws, err := s.workspace(opts.Workspace)
	if err != nil {
		return Result{}, err
	}
	opts.Workspace = ws
	if err := opts.checkMount(); err != nil {
		return Result{}, err
	}
	var p *lang.Project
	if found, err := lang.Detect(ws, deps.PythonFetches); err == nil {
		p = &found
	}
	d := lang.CheckProject(tier, argv, p)
	if !d.Allowed() {
		return Result{Argv: argv}, &RefusedError{Argv: argv, Reason: d.Reason}
	}
	return s.verify(ctx, d, argv, opts)
}

// verify is Verify once the command is allowed.
func (s *Sandbox) verify(ctx context.Context, d lang.Decision, argv []string, opts RunOptions) (Result, error) {
	defer runtime.KeepAlive(s) // as in run
	usable, err := s.Usable(ctx)
	if err != nil {
		return Result{}, err
	}
	if !usable {
		if d.Verdict == lang.AllowedSandboxed {
			return Result{Argv: argv}, &RefusedError{Argv: argv, Reason: "it runs workspace code and the sandbox is not usable here"}
		}
		return s.runHostVerify(ctx, argv, opts, d.Network)
	}
	if d.Network {
		if p := s.Probe(ctx); p.Backend == BackendBwrap {
			return s.runNetwork(ctx, p.Bwrap, argv, opts)
		}
		// No namespaces for a network profile here (the Docker backend):
		// as without a sandbox, after the module files are validated.
		return s.runHostVerify(ctx, argv, opts, true)
	}
	return s.run(ctx, argv, opts)
}

// workspace resolves and checks a workspace directory.
func (s *Sandbox) workspace(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", dir)
	}
	if real == "/" {
		return "", errors.New("the workspace cannot be the root directory")
	}
	for _, private := range []string{s.cfg.Home, s.cfg.HostHome} {
		if private == "" {
			continue
		}
		if p, err := filepath.EvalSymlinks(private); err == nil && within(p, real) {
			return "", fmt.Errorf("the workspace %s contains %s, which the sandbox must not see: pick a directory inside it", dir, private)
		}
	}
	return real, nil
}

func (s *Sandbox) cacheDir(name string) (string, error) {
	if s.cfg.Home == "" {
		return "", errors.New("no state directory ($CORE_HOME) configured")
	}
	dir := filepath.Join(s.cfg.Home, "cache", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make cache directory: %w", err)
	}
	return dir, nil
}

// modCache returns the module cache directory, made if missing: Config's
// ModCache, else the user's, else Home/cache/gomod; "" when none is set.
func (s *Sandbox) modCache() (string, error) {
	if s.cfg.ModCache == "" {
		if u := s.userCaches(); u.Mod != "" && !s.viaDocker.Load() {
			return u.Mod, nil
		}
		if s.cfg.Home == "" {
			return "", nil
		}
		return s.cacheDir("gomod")
	}
	if err := os.MkdirAll(s.cfg.ModCache, 0o700); err != nil {
		return "", fmt.Errorf("make the module cache %s: %w", s.cfg.ModCache, err)
	}
	return filepath.Abs(s.cfg.ModCache)
}

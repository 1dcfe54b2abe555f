package sandbox

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/gate"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/mask"
)

// profileFor is the production profile for a command whose program is tool:
// the caches, the tool's own root, PATH, the masks, the size of /tmp and the
// seccomp filter.
func (s *Sandbox) profileFor(tool string) (profile, error) {
	p := profile{home: s.cfg.Home, lang: s.cfg.Lang, tmpSize: s.cfg.Limits.Tmp, seccomp: true}
	var err error
	if p.modCache, err = s.modCache(); err != nil {
		return profile{}, err
	}
	p.userMods = s.cfg.ModCache == "" && p.modCache == s.userCaches().Mod
	v := s.toolView(tool)
	p.toolRoots = slices.Clone(v.toolRoots)
	p.path = slices.Clone(v.path)
	p.maskScans = slices.Clone(v.scans)
	p.masks = mask.Args(v.scans...)
	p.hosts = s.hostsFile()
	p.goTelemetry = s.telemetryFile()
	return p, nil
}

// hostsFile is the sandbox's /etc/hosts, which resolves localhost (the
// host's may not), written once per Sandbox under $CORE_HOME/cache; ""
// leaves the host's.
func (s *Sandbox) hostsFile() string {
	s.hostsOnce.Do(func() { s.hosts = s.fixedFile("hosts", boxHosts) })
	return s.hosts
}

// goTelemetryOff is what the go command reads as its telemetry mode
// (golang.org/x/telemetry's mode file) to stay off. GOTELEMETRY in the
// environment does not turn it off: the mode lives in the user's
// configuration directory, which inside is the fresh /tmp, where go would
// start a telemetry process of its own beside every command and write
// counter files.
const goTelemetryOff = "off\n"

// goTelemetryMode is where a go command inside reads its telemetry mode.
const goTelemetryMode = sandboxHome + "/.config/go/telemetry/mode"

// telemetryFile is the host file bound at goTelemetryMode, written once per
// Sandbox under $CORE_HOME/cache; "" binds none.
func (s *Sandbox) telemetryFile() string {
	s.telemetryOnce.Do(func() { s.telemetry = s.fixedFile("go-telemetry-mode", goTelemetryOff) })
	return s.telemetry
}

// fixedFile returns a file of $CORE_HOME/cache/etc holding body, readable
// by all, written (atomically) when it does not hold it yet; "" when it
// cannot be.
func (s *Sandbox) fixedFile(name, body string) string {
	if s.cfg.Home == "" {
		return ""
	}
	dir, err := s.cacheDir("etc")
	if err != nil {
		return ""
	}
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil && string(b) == body {
		return p
	}
	tmp, err := os.CreateTemp(dir, name+"-")
	if err != nil {
		return ""
	}
	_, werr := tmp.WriteString(body)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Chmod(tmp.Name(), 0o644) != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
		return ""
	}
	return p
}

// A toolView is what the profile of a command shows of the host for its
// tool: the tool's root, PATH, and what the walks found to mask.
type toolView struct {
	toolRoots []string
	path      []string
	scans     []mask.RootOnly
}

// toolView computes a tool's view once per Sandbox: the host's PATH and
// tools do not change under a running core (a tool not found is looked for
// again next time).
func (s *Sandbox) toolView(tool string) toolView {
	s.mu.Lock()
	v, ok := s.views[tool]
	s.mu.Unlock()
	if ok {
		return v
	}
	var toolDirs []string
	found := false
	if path, err := s.findTool(tool); err == nil && !strings.Contains(tool, "/") {
		found = true
		if root := toolRoot(path, s.cfg.HostHome, s.cfg.Home); root != "" {
			v.toolRoots = append(v.toolRoots, root)
			toolDirs = append(toolDirs, filepath.Dir(path))
		}
	}
	v.path = append(toolDirs, sandboxPath(s.cfg.Path, v.toolRoots)...)
	v.scans = []mask.RootOnly{s.rootOnly(mask.RealRoots(systemRoots))}
	for _, r := range v.toolRoots {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			v.scans = append(v.scans, s.rootOnly([]string{r}))
		}
	}
	if found {
		s.mu.Lock()
		s.views[tool] = v
		s.mu.Unlock()
	}
	return v
}

// rootOnly returns what the masks must hide under roots.
//
// Only when core runs as root: a user namespace made by any other user maps
// confined code to that user, so the kernel keeps from it whatever the file
// modes keep from that user on the host, root's files among them; what
// remains readable is what the user reads anyway, which the sandbox does
// not set out to hide in the system directories (no more than it hides
// /etc/passwd). As root, the walk is needed: see sandbox/mask.
func (s *Sandbox) rootOnly(roots []string) mask.RootOnly {
	c := mask.CurrentCred()
	if !c.Root() {
		return mask.RootOnly{}
	}
	return s.scans.Scan(s.scanDir(), roots, c)
}

// scanDir is where the walks are kept on disk: with the user's caches, in
// the user's own cache directory (they describe the machine, not a
// session, so a fresh $CORE_HOME need not walk again); else under
// $CORE_HOME/cache; "" for nowhere.
func (s *Sandbox) scanDir() string {
	if dir := s.userCacheDir(); dir != "" {
		return filepath.Join(dir, "rootonly")
	}
	if s.cfg.Home != "" {
		return filepath.Join(s.cfg.Home, "cache", "rootonly")
	}
	return ""
}

// userCacheDir is core's directory in the user's cache directory
// ($XDG_CACHE_HOME/core, else ~/.cache/core) when the sandbox shares the
// user's caches; "" otherwise.
func (s *Sandbox) userCacheDir() string {
	if !s.cfg.UserCaches || s.cfg.HostHome == "" || !filepath.IsAbs(s.cfg.HostHome) {
		return ""
	}
	base := filepath.Join(s.cfg.HostHome, ".cache")
	for _, kv := range s.cfg.GoEnv {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok && filepath.IsAbs(v) {
			base = v
		}
	}
	return filepath.Join(base, "core")
}

// runConfined runs argv under the production profile with bwrap.
func (s *Sandbox) runConfined(ctx context.Context, bwrap string, argv []string, opts RunOptions) (Result, error) {
	defer runtime.KeepAlive(s) // its run layer goes with it (gocache/layers.go)
	p, err := s.commandProfile(argv, opts)
	if err != nil {
		return Result{}, err
	}
	if r, ok, err := s.runBoxed(ctx, bwrap, p, argv, opts); ok {
		return r, err
	}
	if srv := s.serveBuildCache(argv, p); srv != nil {
		served := p
		served.cacheProg, served.cacheSock, served.cacheStage = s.cfg.CacheProg, srv.Socket(), srv.Stage()
		served.cacheShared = gocache.SharedLayer(s.cfg.Home, s.cfg.Repo)
		r, err := s.launch(ctx, bwrap, served, argv, opts)
		srv.Close()
		if err == nil && served.cacheShared != "" && gocache.CompilesOnly(argv) {
			// No workspace code ran: what this command's go put is
			// shared with the repository's later runs (gocache/layers.go).
			gocache.Promote(srv.Noted(), p.buildCache, served.cacheShared)
		}
		if err != nil || r.ExitCode == 0 || !cacheProgFailed.MatchString(r.Output) {
			return r, err
		}
		// Core's executable could not serve the cache inside (it cannot
		// start there, say): the command again without it, and no more
		// tries for this Sandbox.
		s.noCacheProg.Store(true)
	}
	return s.launch(ctx, bwrap, p, argv, opts)
}

// commandProfile is the production profile of one command in its
// workspace: its tool's view, its ecosystem's environment, the
// dependencies fetched for it, the run's layer of the build cache, the
// target's toolchain and the module view.
func (s *Sandbox) commandProfile(argv []string, opts RunOptions) (profile, error) {
	p, err := s.profileFor(argv[0])
	if err != nil {
		return profile{}, err
	}
	p.workspace, p.mountAt = opts.Workspace, opts.MountAt
	p.extraEnv = commandEnv(argv[0], opts)
	p.depBinds = opts.deps.Binds
	p.depWritable = opts.deps.Writable
	p.path = append(append([]string(nil), opts.deps.Path...), p.path...)
	if err := s.withRunLayer(&p); err != nil {
		return profile{}, err
	}
	bin := s.fetchedToolchain(opts.Workspace)
	if bin != "" {
		p.path = append([]string{bin}, p.path...) // the target's Go (toolchain.go)
	}
	if err := s.withModView(&p, bin); err != nil {
		return profile{}, err
	}
	return p, nil
}

// withRunLayer gives a profile with a workspace the run's layer of the
// build cache, its only writable build cache (gocache/layers.go).
func (s *Sandbox) withRunLayer(p *profile) error {
	if s.cfg.Home == "" || p.workspace == "" {
		return nil
	}
	layer, err := s.runs.Run(p.workspace)
	if err != nil {
		return err
	}
	p.buildCache = layer
	return nil
}

// withModView shows a profile with a workspace only the modules its sum
// files name (gocache/modview.go), and the target's toolchain, whose bin directory
// is bin ("" for none).
func (s *Sandbox) withModView(p *profile, bin string) error {
	if p.modCache == "" || p.workspace == "" {
		return nil
	}
	view, err := s.moduleView(p.workspace, p.modCache)
	if err != nil {
		return err
	}
	p.modView = view
	if bin != "" {
		root := filepath.Dir(bin)
		rel, err := filepath.Rel(p.modCache, root)
		if err != nil || !filepath.IsLocal(rel) {
			return nil
		}
		if err := os.MkdirAll(filepath.Join(view, rel), 0o755); err != nil {
			return fmt.Errorf("make the module view: %w", err)
		}
		p.modKeep = append(p.modKeep, root)
	}
	return nil
}

// cacheProgFailed matches the go command's own words, at the start of a
// line, when its GOCACHEPROG failed (cmd/go/internal/cache/prog.go).
var cacheProgFailed = regexp.MustCompile(`(?m)^(go: )?(GOCACHEPROG (exited pre-Close|args|sent response|\S+ declared no supported)|error (starting|reading JSON from) GOCACHEPROG|(StdinPipe|StdoutPipe) to GOCACHEPROG)`)

// relays reports whether a go command of profile p reads the user's build
// cache through core's executable inside.
func (s *Sandbox) relays(argv []string, p profile) bool {
	return filepath.Base(argv[0]) == "go" && s.cfg.CacheProg != "" && !s.noCacheProg.Load() && limit.IsExecutable(s.cfg.CacheProg) && p.buildCache != "" && gocache.ProgCommand(cacheProgPath, p.buildCache, true) != ""
}

// serveBuildCache starts, for a go command, the server through which the
// confined build reads the user's build cache; nil when there is nothing
// to serve or no executable to serve it inside.
func (s *Sandbox) serveBuildCache(argv []string, p profile) *gocache.UserServer {
	if !s.relays(argv, p) {
		return nil
	}
	// Links into the view need it on the user's file system: the user's
	// cache directory usually is (the view is kept there, beside what it
	// links to, for every $CORE_HOME), else $CORE_HOME; else the server
	// copies. Without a build cache of the user's, the server only hears
	// what is put.
	u := s.userCaches()
	view := ""
	for _, dir := range []string{s.userCacheDir(), filepath.Join(s.cfg.Home, "cache")} {
		if u.Build != "" && dir != "" && os.MkdirAll(dir, 0o700) == nil && gocache.SameDevice(u.Build, dir) {
			view = gocache.FreshView(dir)
			break
		}
	}
	srv, err := gocache.ServeUser(u.Build, p.buildCache, view)
	if err != nil {
		return nil // the build goes on with the run's layer
	}
	return srv
}

// runNetwork runs a go mod sub-command confined with the host's network:
// it fetches modules and rewrites go.mod and go.sum, so it sees the
// workspace (writable, .git read-only) and fills the module cache, but runs
// under the same limits, filter and masks as everything else.
func (s *Sandbox) runNetwork(ctx context.Context, bwrap string, argv []string, opts RunOptions) (Result, error) {
	defer runtime.KeepAlive(s) // its run layer goes with it (gocache/layers.go)
	p, err := s.profileFor(argv[0])
	if err != nil {
		return Result{}, err
	}
	p.workspace = opts.Workspace
	if err := s.withRunLayer(&p); err != nil {
		return Result{}, err
	}
	s.networked(&p)
	if !opts.Background {
		defer s.yield.Start()()
	}
	return s.launch(ctx, bwrap, p, argv, opts)
}

// networked turns a profile into a network one.
func (s *Sandbox) networked(p *profile) {
	p.network = true
	p.modCacheRW = true
	p.hostEnv = s.cfg.HostEnv
	p.extraRO = append(p.extraRO, networkFiles(s.cfg.HostEnv)...)
}

// launch runs argv under the profile p, gated, limited and filtered.
func (s *Sandbox) launch(ctx context.Context, bwrap string, p profile, argv []string, opts RunOptions) (Result, error) {
	prog, err := s.seccomp(p.network)
	if err != nil {
		return Result{}, err
	}
	for attempt := 0; ; attempt++ {
		var y *limit.Yielder
		if opts.Background {
			y = &s.yield
		}
		l, err := gate.New(prog, s.cfg.Limits, s.cgroupParents(), p.workspace != "", y)
		if err != nil {
			return Result{}, err
		}
		r, err := execute(ctx, bwrap, p.args(argv), []string{}, opts, l)
		if err == nil && attempt == 0 && r.ExitCode == 1 && strings.Count(strings.TrimSpace(r.Output), "\n") == 0 && vanishedMask(r.Output) {
			// bwrap could not mount over a path that went after the
			// profile was made (another process removed it): the masks
			// again, from the host as it is now, once.
			r.hit(l.Finish("", r.ExitCode, r.Output), s.cfg.Limits)
			p.masks = mask.Args(p.maskScans...)
			continue
		}
		r.hit(l.Finish(p.workspace, r.ExitCode, r.Output), s.cfg.Limits)
		r.Argv = argv
		r.Sandboxed = true
		return r, err
	}
}

// hit records that the command hit the limit name ("" for none): the note
// that says how to raise it, and an exit code that is not success.
func (r *Result) hit(name string, limits limit.Limits) {
	if name == "" {
		return
	}
	r.Limit = name
	r.Output += limit.LimitNote(name, limits)
	if r.ExitCode == 0 {
		r.ExitCode = 1
	}
}

// cgroupParents finds where commands get their cgroups, once per Sandbox.
func (s *Sandbox) cgroupParents() limit.CgroupParents {
	s.cgOnce.Do(func() { s.cgParents = limit.FindCgroupParents() })
	return s.cgParents
}

// seccomp returns the assembled filter, built once per Sandbox.
func (s *Sandbox) seccomp(network bool) ([]byte, error) {
	i := 0
	if network {
		i = 1
	}
	s.seccompOnce[i].Do(func() { s.seccompProg[i], s.seccompErr[i] = limit.SeccompProgram(network) })
	return s.seccompProg[i], s.seccompErr[i]
}

// networkFiles are the host paths a network profile needs that the system
// roots do not show: the target of /etc/resolv.conf when it is a link out of
// /etc (systemd-resolved), and the directories of file:// module proxies.
func networkFiles(hostEnv []string) []string {
	var out []string
	if real, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !visible(real, nil) {
		out = append(out, real)
	}
	for _, kv := range hostEnv {
		name, value, _ := strings.Cut(kv, "=")
		if name != "GOPROXY" {
			continue
		}
		for _, entry := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '|' }) {
			u, err := url.Parse(strings.TrimSpace(entry))
			if err != nil || u.Scheme != "file" || !filepath.IsAbs(u.Path) {
				continue
			}
			if fi, err := os.Stat(u.Path); err == nil && fi.IsDir() {
				out = append(out, filepath.Clean(u.Path))
			}
		}
	}
	return out
}

// runHostVerify runs a verification command on the host, for when the
// sandbox is not usable (only commands that run no workspace code get
// here). The module files are checked first, so that the go command on the
// host never follows a planted link or blocks on a FIFO; the module
// download runs from validated copies in a scratch directory.
func (s *Sandbox) runHostVerify(ctx context.Context, argv []string, opts RunOptions, network bool) (Result, error) {
	if argv[0] == "go" {
		if _, err := deps.GoModuleFiles(opts.Workspace); err != nil && !deps.IsNoModule(err) {
			return refusedModules(argv, err), nil
		}
		if !network {
			r, ok, err := s.downloadModules(ctx, "", opts)
			if err != nil || !ok {
				return r, err
			}
		}
	}
	return s.RunHost(ctx, argv, opts)
}

func refusedModules(argv []string, err error) Result {
	return Result{Argv: argv, ExitCode: 1, Output: fmt.Sprintf("core did not run %s: %v\n", strings.Join(argv, " "), err)}
}

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/manifest"
)

// The dependency step of an ecosystem beside Go (Go's is the module
// download, download.go). Like it, it never runs in the workspace: it
// writes what core passes on of the manifest and lockfile into a scratch
// directory (pip's requirements re-emitted by core, pipreqs.go; npm's and
// cargo's lockfiles once every package is from a configured registry,
// npmlock.go and cargolock.go) and runs the ecosystem's fetcher there,
// confined, with no network but core's proxy to its registries
// (egress.go), in a form that runs no code of the packages it fetches
// (npm ci --ignore-scripts, pip wheels only, cargo vendor). A repository
// without a lockfile gets one resolved first, by a step of the same kind,
// and kept for the run (lockless.go). The scratch directory
// becomes the dependencies, kept under $CORE_HOME/cache/deps by the hash of
// the copied files: a layer written only by steps in which no workspace
// code ran, so every run may read it; confined commands see it read-only.

// bind is a host path the sandbox sees read-only at inside.
type Bind struct{ Host, Inside string }

// Inside is where confined commands see dependencies that do not live
// in the workspace.
const Inside = "/tmp/core-deps"

// View is what a confined command sees of the dependencies fetched
// for it, and what to tell about them.
type View struct {
	Binds []Bind
	// Writable are the directories inside Binds that tools write (their
	// caches): a fresh tmpfs each, per sandbox (writable.go).
	Writable []string
	Env      []string
	Path     []string // directories before the toolchain's on PATH
	// Note says what the step could not do; it heads the command's output.
	Note string
	// Err is why the step fetched nothing when it is the environment's
	// (a *Unreachable); Result.Deps.
	Err error
}

// Plan is one ecosystem's dependency step for one workspace.
type Plan struct {
	Eco   string
	Tool  string            // the step's program
	Files map[string][]byte // validated copies of the manifest and the lockfile
	Argv  []string          // run in the scratch directory, as ScratchDir
	Env   []string          // the step's own environment
	// Hosts are the host:port pairs the step may reach (egress.go).
	Hosts []string
	// HostEnv are the host's registry settings the step gets as they are
	// (Rust's); Node's and Python's become the step's own env and argv.
	HostEnv []string
	// View says what confined commands see of the fetched directory.
	View func(dir, ws string) View
	// Failed words a failure of the step, with its output.
	Failed func(output string) string
	// After, when set, finishes the fetched directory on the host.
	After func(dir string) error
	// Resolves, when set, is the lockfile the step writes in the scratch
	// directory from the manifest alone, fetching no package: the
	// repository has none (lockless.go). Resolved, when set, turns what it
	// wrote into the lockfile the plan is made again with.
	Resolves string
	Resolved func(raw []byte) ([]byte, error)
	// egress records what the step's proxy could not reach (depsunreach.go).
	Egress *egress.Log
}

// HostEnvNames are the registry settings of the host that an
// ecosystem's dependency step passes on: where to fetch from, never a
// credential.
func HostEnvNames(eco string) []string {
	switch eco {
	case "node":
		return []string{"NPM_CONFIG_REGISTRY", "npm_config_registry"}
	case "python":
		return []string{"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_FIND_LINKS"}
	case "rust":
		return []string{"CARGO_REGISTRIES_CRATES_IO_PROTOCOL", "CARGO_NET_GIT_FETCH_WITH_CLI"}
	}
	return nil
}

// Host is what the host sets for the dependency steps: its environment
// (Config.HostEnv), of which a step gets the registry settings, and the
// index of a cargo registry by name (Config.CargoIndex), nil when none.
type Host struct {
	Env        []string
	CargoIndex func(name string) string
}

// PlanFor reads the workspace's lockfile for the ecosystem of tool and
// returns the step that fetches what it names, with the runners the
// toolchain lacks (runners.go); false when there is nothing to fetch. A
// note without a plan says why nothing is fetched. Without a lockfile,
// the step resolves one (its resolves is set), unless resolved holds what
// the run resolved already (lockless.go).
func PlanFor(tool, ws string, runners []string, host Host, resolved []byte) (Plan, string, bool, error) {
	e, ok := lang.EcosystemOf(tool)
	if !ok {
		return Plan{}, "", false, nil
	}
	read := func(names ...string) (map[string][]byte, error) { return readManifests(ws, names) }
	switch e.Name {
	case "node":
		return planNodeDeps(read, host.RegistryEnv("node"), resolved)
	case "python":
		return planPythonDeps(read, runners, host.RegistryEnv("python"), resolved)
	case "rust":
		plan, note, ok, err := planRustDeps(host.cargoIndexes, read, resolved)
		plan.HostEnv = host.RegistryEnv("rust")
		plan.Hosts = cargoHosts(plan.Env)
		return plan, note, ok, err
	}
	return Plan{}, "", false, nil
}

// planDeps is PlanFor with the host's settings of this Sandbox.
func (s *Sandbox) planDeps(tool, ws string, runners []string, resolved []byte) (Plan, string, bool, error) {
	return PlanFor(tool, ws, runners, s.depsHost(), resolved)
}

// depsHost is what the host sets for the dependency steps.
func (s *Sandbox) depsHost() Host {
	return Host{Env: s.cfg.HostEnv, CargoIndex: s.cfg.CargoIndex}
}

// readManifests reads the named files of the workspace's top that are
// there, without following a link, at most 8 MiB each.
func readManifests(ws string, names []string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, name := range names {
		b, err := manifest.ReadWorkspaceFile(ws, name, lang.MaxManifestSize*8)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// hasNodeDependencies reports whether package.json names dependencies.
func hasNodeDependencies(pkg []byte) bool {
	var p struct {
		Dependencies    map[string]any `json:"dependencies"`
		DevDependencies map[string]any `json:"devDependencies"`
	}
	return json.Unmarshal(pkg, &p) == nil && len(p.Dependencies)+len(p.DevDependencies) > 0
}

// fetchDeps runs the dependency step for the command argv in the
// workspace, once per lockfile, and returns what the command sees of it.
// The step runs in bwrap's network profile, or in a sibling container of
// the ecosystem's image with the network on (docker_deps.go).
func (s *Sandbox) fetchDeps(ctx context.Context, b backend, bwrap string, argv []string, opts RunOptions) (View, error) {
	tool := argv[0]
	runners := s.lackedRunners(ctx, argv, opts.Workspace)
	plan, note, ok, err := s.planDeps(tool, opts.Workspace, runners, nil)
	if err != nil {
		return View{Note: "core fetched no dependencies: " + err.Error() + "\n"}, nil
	}
	if !ok {
		return View{Note: note}, nil
	}
	d, viaDocker := b.(*dockerBackend)
	if bwrap == "" && !viaDocker {
		return View{Note: fmt.Sprintf("core fetched no %s dependencies: the dependency step needs bwrap's network profile or the Docker backend\n", plan.Eco)}, nil
	}
	if s.cfg.Home == "" {
		return View{Note: "core fetched no dependencies: no state directory ($CORE_HOME) to keep them in\n"}, nil
	}
	if plan.Resolves != "" {
		lock, v, err := s.resolveLock(ctx, b, bwrap, plan, opts)
		if err != nil || lock == nil {
			return v, err
		}
		plan, note, ok, err = s.planDeps(tool, opts.Workspace, runners, lock)
		if err != nil {
			return View{Note: "core fetched no dependencies: " + err.Error() + "\n"}, nil
		}
		if !ok || plan.Resolves != "" {
			return View{Note: note}, nil
		}
	}
	key := FilesKey(plan.Files)
	if viaDocker {
		// What one image fetched is that image's: a wheel or a
		// node_modules is for one interpreter.
		img, err := d.imageFor(ctx, tool)
		if err != nil {
			return View{}, err
		}
		key = FilesKey(map[string][]byte{"files": []byte(key), "image": []byte(img.ref)})
	}
	dir := filepath.Join(s.cfg.Home, "cache", "deps", plan.Eco+"-"+key[:24])
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return plan.View(dir, opts.inside()), nil
	}
	if v, ok := s.depsFailed.Load(key); ok {
		return v.(View), nil // this process tried: once is enough
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return View{}, fmt.Errorf("make the dependency cache: %w", err)
	}
	scratch, err := s.scratch(plan.Files)
	if err != nil {
		return View{}, err
	}
	defer os.RemoveAll(scratch)
	plan.Egress = &egress.Log{}
	start := time.Now()
	count := PackagesWord(plan.Eco, Packages(plan))
	progressf(opts, "Fetching %s for the command (%s) …", count, strings.Join(plan.Argv, " "))
	ended := waitingFor(opts.Progress, fmt.Sprintf("the dependency step: %s (the network on, no workspace code; not counted against the timeout)", strings.Join(plan.Argv, " ")))
	r, err := s.depsStep(ctx, b, bwrap, plan, scratch)
	ended()
	if err != nil {
		return View{}, fmt.Errorf("%s: %w", strings.Join(plan.Argv, " "), err)
	}
	if r.ExitCode != 0 {
		return s.stepFailed(ctx, key, plan, r.Output), nil
	}
	if plan.After != nil {
		if err := plan.After(scratch); err != nil {
			return View{Note: plan.Failed(err.Error())}, nil
		}
	}
	if viaDocker {
		// Read-only for everyone from now on, as bwrap's binds are.
		if err := os.Chmod(scratch, 0o755); err != nil {
			return View{}, fmt.Errorf("keep the dependencies: %w", err)
		}
	}
	if err := os.Rename(scratch, dir); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return plan.View(dir, opts.inside()), nil // another command's step got there first
		}
		return View{}, fmt.Errorf("keep the dependencies: %w", err)
	}
	progressf(opts, "Fetched %s in %s.", count, roundDuration(time.Since(start)))
	return plan.View(dir, opts.inside()), nil
}

// depsStep runs plan's step in scratch: in bwrap's network profile, or in
// a sibling container of the ecosystem's image (docker_deps.go).
func (s *Sandbox) depsStep(ctx context.Context, b backend, bwrap string, plan Plan, scratch string) (Result, error) {
	if d, ok := b.(*dockerBackend); ok {
		return d.fetch(ctx, plan, scratch, plan.HostEnv)
	}
	return s.fetchConfined(ctx, bwrap, plan, scratch)
}

// Packages counts the packages plan fetches: those its lockfile names,
// or the lines of Python's requirements.
func Packages(plan Plan) int {
	switch plan.Eco {
	case "node":
		for _, name := range []string{"npm-shrinkwrap.json", "package-lock.json"} {
			if lock := plan.Files[name]; lock != nil {
				return LockPackages("node", lock)
			}
		}
	case "rust":
		return LockPackages("rust", plan.Files["Cargo.lock"])
	case "python":
		n := 0
		for _, body := range plan.Files {
			n += LockPackages("python", body)
		}
		return n
	}
	return 0
}

// fetchConfined runs the step in bwrap's network profile: the scratch
// directory and nothing of $CORE_HOME. Its network is the proxy to the
// plan's hosts (egress.go), behind core's executable inside; without
// that executable (a test's Config), the host's network, as before.
func (s *Sandbox) fetchConfined(ctx context.Context, bwrap string, plan Plan, scratch string) (Result, error) {
	p, err := s.profileFor(plan.Tool)
	if err != nil {
		return Result{}, err
	}
	p.scratch = scratch
	p.modCache, p.buildCache = "", "" // nothing of $CORE_HOME
	p.hostEnv = plan.HostEnv
	p.extraEnv = plan.Env
	argv := plan.Argv
	if exe := s.agentExe(); exe != "" {
		proxy, err := egress.Serve(plan.Hosts, plan.Egress)
		if err != nil {
			return Result{}, err
		}
		defer proxy.Close()
		// No network of its own: core's executable, at the box agent's
		// place, and the proxy's socket, at the box's directory.
		p.network, p.cacheProg = false, ""
		p.agent, p.boxDir = exe, proxy.Dir()
		p.extraEnv = append(slices.Clone(plan.Env), egress.Env...)
		argv = egressCommand(cacheProgPath, WithPipProxy(plan.Argv))
	} else {
		s.networked(&p)
		p.modCacheRW = false
		p.hostEnv = plan.HostEnv
	}
	return s.launch(ctx, bwrap, p, argv, RunOptions{Workspace: scratch, Timeout: s.cfg.DownloadTimeout, OutputLimit: 4 << 10})
}

// WithPipProxy gives pip, which runs isolated (no variable of anyone's),
// the step's proxy as its option.
func WithPipProxy(argv []string) []string {
	if len(argv) < 4 || argv[1] != "-m" || argv[2] != "pip" || argv[3] != "install" {
		return argv
	}
	return slices.Concat(argv[:4], []string{"--proxy", egress.ProxyURL}, argv[4:])
}

// RegistryEnv is the host's registry settings for an ecosystem's step.
func (h Host) RegistryEnv(eco string) []string {
	var out []string
	for _, kv := range h.Env {
		name, _, _ := strings.Cut(kv, "=")
		for _, n := range HostEnvNames(eco) {
			if name == n {
				out = append(out, kv)
			}
		}
	}
	return out
}

// planRustDeps is Rust's step: cargo vendor of what Cargo.lock names,
// from copies of Cargo.toml and Cargo.lock beside empty stand-ins for the
// crate's sources (cargo vendor reads the manifest, and compiles nothing).
// Cargo prints the configuration that reads the vendored sources; confined
// commands get it as their $CARGO_HOME/config.toml. indexes are the
// CARGO_REGISTRIES_<NAME>_INDEX settings of the registries a Cargo.toml
// names (cargoIndexes), which the step and the commands both need.
// Without a Cargo.lock the plan resolves one (cargo generate-lockfile,
// lockless.go); planned again with what it resolved (resolved), it is
// cargo vendor of that, checked as a committed Cargo.lock is.
func planRustDeps(indexes func(manifest []byte) []string, read func(...string) (map[string][]byte, error), resolved []byte) (Plan, string, bool, error) {
	files, err := read("Cargo.toml", "Cargo.lock")
	if err != nil || files["Cargo.toml"] == nil {
		return Plan{}, "", false, err
	}
	if files["Cargo.lock"] == nil && resolved != nil {
		files["Cargo.lock"] = resolved
	}
	if files["Cargo.lock"] == nil {
		if strings.Contains(string(files["Cargo.toml"]), "dependencies]") {
			return planCargoResolve(indexes(files["Cargo.toml"]), files["Cargo.toml"])
		}
		return Plan{}, "", false, nil
	}
	if !strings.Contains(string(files["Cargo.lock"]), "\nsource = ") {
		return Plan{}, "", false, nil // nothing but the workspace's own crates
	}
	// Where a dependency's registry = "name" points, offline too.
	named := indexes(files["Cargo.toml"])
	if problems := manifest.CargoLockProblems(files["Cargo.toml"], files["Cargo.lock"], manifest.CargoSources(named)); len(problems) > 0 {
		return Plan{}, manifest.CargoProblemsNote(problems), false, nil
	}
	files["src/lib.rs"], files["src/main.rs"] = []byte{}, []byte("fn main() {}\n")
	return Plan{
		Eco: "rust", Tool: "cargo", Files: files,
		// Core's own shell line, nothing of the workspace in it: the
		// configuration cargo prints is kept in a file.
		Argv: []string{"sh", "-c", "cargo vendor --locked --versioned-dirs vendor > vendor.toml"},
		Env:  append([]string{"CARGO_HOME=/tmp/cargo", "CARGO_TERM_COLOR=never"}, named...),
		View: func(dir, _ string) View {
			return View{
				Binds: []Bind{
					{Host: filepath.Join(dir, "vendor"), Inside: Inside + "/vendor"},
					{Host: filepath.Join(dir, "config.toml"), Inside: "/tmp/cargo/config.toml"},
				},
				Env: named,
			}
		},
		After: func(dir string) error {
			b, err := os.ReadFile(filepath.Join(dir, "vendor.toml"))
			if err != nil {
				return err
			}
			config := strings.Replace(string(b), `directory = "vendor"`, `directory = "`+Inside+`/vendor"`, 1)
			// Readable by the sandbox user of a sibling container too.
			return os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o644)
		},
		Failed: func(out string) string {
			return "cargo vendor --locked (run by core, confined, with the network) failed; the command runs without the dependencies:\n" + out
		},
	}, "", true, nil
}

// cargoRegistryName is how Cargo.toml names a dependency's registry.
var cargoRegistryName = regexp.MustCompile(`(?m)\bregistry\s*=\s*"([A-Za-z0-9_-]+)"`)

// CargoIndexVar is the variable that holds a cargo registry's index.
func CargoIndexVar(name string) string {
	return "CARGO_REGISTRIES_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_INDEX"
}

// cargoIndexes are the CARGO_REGISTRIES_<NAME>_INDEX settings of
// the host's environment, and those of the registries manifest names that
// the host sets (CargoIndex).
func (h Host) cargoIndexes(manifest []byte) []string {
	var out []string
	for _, kv := range h.Env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "CARGO_REGISTRIES_") && strings.HasSuffix(name, "_INDEX") {
			out = append(out, kv)
		}
	}
	if h.CargoIndex == nil {
		return out
	}
	for _, m := range cargoRegistryName.FindAllSubmatch(manifest, -1) {
		name := CargoIndexVar(string(m[1]))
		if v := h.CargoIndex(string(m[1])); v != "" && !slices.ContainsFunc(out, func(kv string) bool { return strings.HasPrefix(kv, name+"=") }) {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// emptyOrAbsent reports whether path is absent or an empty directory (the
// mount point an earlier command left): never a link.
func emptyOrAbsent(path string) bool {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || !fi.IsDir() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err != nil
}

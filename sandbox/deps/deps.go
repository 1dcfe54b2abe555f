// Package deps plans, drives and judges the dependency steps of the
// ecosystems beside Go: for each ecosystem, one file with its plan, the
// checks of what it passes on, the hosts its proxy may reach and how it
// resolves a lockfile the repository lacks; Steps drives them, once per
// lockfile (steps.go, resolve.go), and says what a failed step says, and
// whether its registry was out of reach (unreach.go). Go's step is the
// module download (sandbox/download.go): what it reads of the workspace and
// whether the module cache holds it already, and the toolchain its go.mod
// asks for, are here too (golang.go), and which workspaces have it done
// (downloads.go). It runs no process itself: a Runner
// of package sandbox runs each step, confined, and sandbox mounts the View
// Steps returns.
//
// A step never runs in the workspace: it writes what core passes on of
// the manifest and lockfile into a scratch directory (pip's requirements
// re-emitted by core, sandbox/manifest/pipreqs.go; npm's and cargo's
// lockfiles once every package is from a configured registry,
// sandbox/manifest's npmlock.go and cargolock.go) and runs the ecosystem's
// fetcher there, confined, with no network but core's proxy to its
// registries (sandbox/egress), in a form that runs no code of the packages
// it fetches (npm ci --ignore-scripts, pip wheels only, cargo vendor). A
// repository without a lockfile gets one resolved first, by a step of the
// same kind, and kept for the run (resolve.go). The scratch
// directory becomes the dependencies, kept under $CORE_HOME/cache/deps by
// the hash of the copied files: a layer written only by steps in which no
// workspace code ran, so every run may read it; confined commands see it
// read-only.
package deps

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/manifest"
)

// Bind is a host path the sandbox sees read-only at Inside.
type Bind struct{ Host, Inside string }

// Inside is where confined commands see dependencies that do not live
// in the workspace.
const Inside = "/tmp/core-deps"

// View is what a confined command sees of the dependencies fetched
// for it, and what to tell about them.
type View struct {
	Binds []Bind
	// Writable are the directories inside Binds that tools write (their
	// caches): a fresh tmpfs each, per sandbox (writable.go; sandbox/writable.go mounts them).
	Writable []string
	Env      []string
	Path     []string // directories before the toolchain's on PATH
	// Note says what the step could not do; it heads the command's output.
	Note string
	// Err is why the step fetched nothing when it is the environment's
	// (a *Unreachable); sandbox.Result.Deps.
	Err error
}

// Plan is one ecosystem's dependency step for one workspace.
type Plan struct {
	Eco   string
	Tool  string            // the step's program
	Files map[string][]byte // validated copies of the manifest and the lockfile
	Argv  []string          // run in the scratch directory, as ScratchDir
	Env   []string          // the step's own environment
	// Hosts are the host:port pairs the step may reach (sandbox/egress).
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
	// repository has none (resolve.go). Resolved, when set, turns what it
	// wrote into the lockfile the plan is made again with.
	Resolves string
	Resolved func(raw []byte) ([]byte, error)
	// Egress records what the step's proxy could not reach (unreach.go).
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
// (sandbox.Config.HostEnv), of which a step gets the registry settings, and the
// index of a cargo registry by name (sandbox.Config.CargoIndex), nil when none.
type Host struct {
	Env        []string
	CargoIndex func(name string) string
}

// PlanFor reads the workspace's lockfile for the ecosystem of tool and
// returns the step that fetches what it names, with the runners the
// toolchain lacks (sandbox/runners.go); false when there is nothing to fetch. A
// note without a plan says why nothing is fetched. Without a lockfile,
// the step resolves one (its resolves is set), unless resolved holds what
// the run resolved already (resolve.go).
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

// ScratchDir is where the download profile sees its scratch directory.
const ScratchDir = "/tmp/module"

func FilesKey(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

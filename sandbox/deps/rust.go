package deps

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/manifest"
)

// planRustDeps is Rust's step: cargo vendor of what Cargo.lock names,
// from copies of Cargo.toml and Cargo.lock beside empty stand-ins for the
// crate's sources (cargo vendor reads the manifest, and compiles nothing).
// Cargo prints the configuration that reads the vendored sources; confined
// commands get it as their $CARGO_HOME/config.toml. indexes are the
// CARGO_REGISTRIES_<NAME>_INDEX settings of the registries a Cargo.toml
// names (cargoIndexes), which the step and the commands both need.
// Without a Cargo.lock the plan resolves one (cargo generate-lockfile,
// resolve.go); planned again with what it resolved (resolved), it is
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

// planCargoResolve is the step that resolves Cargo.lock from Cargo.toml
// alone: cargo generate-lockfile reads the registries' indexes and builds
// nothing (no build script runs). A git source or an index named by URL
// refuses it before anything is fetched, as it refuses a committed
// Cargo.lock.
func planCargoResolve(named []string, cargoToml []byte) (Plan, string, bool, error) {
	if problems := manifest.CargoLockProblems(cargoToml, nil, manifest.CargoSources(named)); len(problems) > 0 {
		return Plan{}, manifest.CargoProblemsNote(problems), false, nil
	}
	return Plan{
		Eco: "rust", Tool: "cargo", Resolves: "Cargo.lock",
		Files: map[string][]byte{"Cargo.toml": cargoToml, "src/lib.rs": {}, "src/main.rs": []byte("fn main() {}\n")},
		Argv:  []string{"cargo", "generate-lockfile"},
		Env:   append([]string{"CARGO_HOME=/tmp/cargo", "CARGO_TERM_COLOR=never"}, named...),
		Failed: func(out string) string {
			return "core fetched no dependencies: there is no Cargo.lock, and cargo generate-lockfile (run by core, confined, with the network) could not resolve one from Cargo.toml; the command runs without the dependencies:\n" + out
		},
	}, "", true, nil
}

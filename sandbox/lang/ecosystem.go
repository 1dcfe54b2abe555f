package lang

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/manifest"
)

// An Ecosystem is one language's verification policy: the programs its
// commands start with, what each tier lets them do (checked on argv lists,
// like every verification command), the files at the workspace's top that
// say a repository is in it, and where its toolchain comes from; the step
// that fetches its dependencies is deps.PlanFor's (sandbox/deps; Go's, the module
// download). Go is the first one, not a special case.
type Ecosystem struct {
	// Name is how people and reports name it: go, flutter, python, node,
	// rust.
	Name string
	// Tools are the programs its commands start with (argv[0]).
	Tools []string
	// Required are the programs a machine needs for it; the pre-flight
	// names those missing (Missing).
	Required []string
	// Standalone are the programs that work without the manifest (gofmt
	// formats any Go file).
	Standalone []string
	// Manifests are the file names at the workspace's top that say the
	// repository is in this ecosystem; a name may hold one * (requirements*.txt).
	Manifests []string
	// Inferred says what else shows a repository is in this ecosystem
	// when no ecosystem's manifest is at the top (Python's tests, found
	// by pythonTestsIn); "" when only a manifest does.
	Inferred string
	// Optional are programs its commands may start with that a toolchain
	// may lack, each with the program to run instead: Debian has python3
	// and no python. AllowedIn offers a command that starts with one only
	// where the toolchain has it (Locate).
	Optional map[string]string
	// Toolchain says where its programs come from and what to install when
	// they are missing.
	Toolchain string
	// Packages are the Debian packages of its toolchain: a toolchain
	// image's PACKAGES (docker/toolchain.Dockerfile).
	Packages string
	// Runners are the test runners of Required that the dependency step
	// fetches when the toolchain lacks them, each with the program that
	// fetches it (sandbox/runners.go): pytest, with pip3.
	Runners map[string]string

	check   func(tier Tier, argv []string, p *Project) Decision
	allowed func(tier Tier, p *Project) []Allowance
}

// Ecosystems is the table of the languages the tiers know, in the order
// they are told.
func Ecosystems() []Ecosystem {
	return []Ecosystem{goEcosystem(), pythonEcosystem(), nodeEcosystem(), rustEcosystem(), flutterEcosystem()}
}

// EcosystemOf returns the ecosystem whose commands start with tool.
func EcosystemOf(tool string) (Ecosystem, bool) {
	for _, e := range Ecosystems() {
		if slices.Contains(e.Tools, tool) {
			return e, true
		}
	}
	return Ecosystem{}, false
}

// goEcosystem is Go: the policy is policy.go's, the dependency step the
// module download (sandbox/download.go), the toolchain the host's or the one go.mod
// asks for (sandbox/toolchain.go).
func goEcosystem() Ecosystem {
	return Ecosystem{
		Name: "go", Tools: []string{"go", "gofmt"}, Required: []string{"go"}, Standalone: []string{"gofmt"}, Manifests: []string{"go.mod", "go.work"},
		Toolchain: "go on PATH, or the release go.mod asks for (fetched through the module proxy)",
		check: func(tier Tier, argv []string, _ *Project) Decision {
			if argv[0] == "gofmt" {
				return checkGofmt(argv)
			}
			return checkGo(tier, argv)
		},
		allowed: func(tier Tier, _ *Project) []Allowance {
			list := []Allowance{
				{Command: "go build"}, {Command: "go vet"}, {Command: "go list"},
				{Command: "go mod " + strings.Join(goModSubcommands, "|")},
				{Command: "gofmt -l"},
			}
			if tier == TierTest {
				list = append(list, Allowance{Command: "go test", Sandboxed: true})
			}
			return list
		},
	}
}

// flutterEcosystem is Flutter: the host's flutter, no dependency step.
func flutterEcosystem() Ecosystem {
	return Ecosystem{
		Name: "flutter", Tools: []string{"flutter"}, Required: []string{"flutter"}, Manifests: []string{"pubspec.yaml"},
		Toolchain: "flutter on PATH",
		check: func(tier Tier, argv []string, _ *Project) Decision {
			return checkFlutter(tier, argv)
		},
		allowed: func(tier Tier, _ *Project) []Allowance {
			list := []Allowance{{Command: "flutter analyze"}}
			if tier == TierTest {
				list = append(list, Allowance{Command: "flutter test", Sandboxed: true})
			}
			return list
		},
	}
}

// Project is what core found at a workspace's top: the ecosystems whose
// manifests are there, and what the policy needs of them (the scripts
// package.json names). Detect reads it the way host code reads workspace
// files: no link followed, sizes capped.
type Project struct {
	// Ecosystems are the names of the ecosystems found, in table order.
	Ecosystems []string `json:"ecosystems"`
	// Scripts are the names of package.json's scripts, sorted.
	Scripts []string `json:"scripts,omitempty"`
	// scripts maps a script's name to its text.
	scripts map[string]string
	// known is set once the project was read from a workspace: the policy
	// then holds npm run and npx to what package.json names.
	known bool
	// Inferred are the ecosystems of Ecosystems found without their
	// manifest, from what is there (Python's tests).
	Inferred []string `json:"inferred,omitempty"`
	// fetches lists the test runners its dependency step fetches
	// (pytest, named in requirements.txt or pyproject.toml).
	fetches []string
	// absent are the Optional programs the toolchain lacks, as Locate
	// found them: AllowedIn offers no command that starts with one.
	absent []string
}

// Has reports whether the project is in the named ecosystem.
func (p *Project) Has(name string) bool { return p != nil && slices.Contains(p.Ecosystems, name) }

// Fetches are the test runners the project's dependency step fetches.
func (p *Project) Fetches() []string { return p.fetches }

// SetAbsent records the Optional programs the toolchain lacks (the
// sandbox's Locate): AllowedIn offers no command that starts with one.
func (p *Project) SetAbsent(programs []string) { p.absent = programs }

// MaxManifestSize caps what core reads of package.json and the like.
const MaxManifestSize = 1 << 20

// Detect reads which ecosystems the workspace ws is in, from the regular
// files at its top; when none of them is a manifest, Python from its tests
// below the top (pythonTestsIn). A package.json that cannot be read or
// parsed still says Node; its scripts are then unknown, and npm run allows
// none. fetches says whether the dependency step in ws fetches a test
// runner (the sandbox's, which plans the step); nil: none.
func Detect(ws string, fetches func(ws, name string) bool) (Project, error) {
	p := Project{known: true}
	entries, err := os.ReadDir(ws)
	if err != nil {
		return p, fmt.Errorf("look for the workspace's manifests: %w", err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, e.Name())
		}
	}
	for _, e := range Ecosystems() {
		if slices.ContainsFunc(files, func(f string) bool { return matchesManifest(e.Manifests, f) }) {
			p.Ecosystems = append(p.Ecosystems, e.Name)
		}
	}
	if len(p.Ecosystems) == 0 && pythonTestsIn(ws) {
		p.Ecosystems, p.Inferred = []string{"python"}, []string{"python"}
	}
	if p.Has("node") {
		p.scripts, _ = packageScripts(ws)
		for name := range p.scripts {
			p.Scripts = append(p.Scripts, name)
		}
		slices.Sort(p.Scripts)
	}
	if p.Has("python") && fetches != nil && fetches(ws, "pytest") {
		p.fetches = append(p.fetches, "pytest")
	}
	return p, nil
}

// matchesManifest reports whether a file name is one of the manifests.
func matchesManifest(manifests []string, name string) bool {
	for _, m := range manifests {
		if ok, _ := path.Match(m, name); ok {
			return true
		}
	}
	return false
}

// packageScripts reads the scripts of the workspace's package.json.
func packageScripts(ws string) (map[string]string, error) {
	b, err := manifest.ReadWorkspaceFile(ws, "package.json", MaxManifestSize)
	if err != nil {
		return nil, err
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return nil, fmt.Errorf("package.json in the workspace: %w", err)
	}
	return pkg.Scripts, nil
}

// NotApplicable says why a check cannot apply to a tree: its ecosystem's
// manifest is not there, or its toolchain is not on this machine. Such a
// check could not run at all: it is neither passing nor failing.
type NotApplicable struct {
	Reason string
}

func (e *NotApplicable) Error() string { return e.Reason }

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFiles writes files (slash-separated names) into dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		link    string // a symbolic link named this, to a package.json outside
		want    []string
		scripts []string
	}{
		{name: "nothing", files: map[string]string{"README": "x"}},
		{name: "go", files: map[string]string{"go.mod": "module x\n"}, want: []string{"go"}},
		{name: "go.work", files: map[string]string{"go.work": "go 1.22\n"}, want: []string{"go"}},
		{name: "python pyproject", files: map[string]string{"pyproject.toml": ""}, want: []string{"python"}},
		{name: "python requirements", files: map[string]string{"requirements-dev.txt": ""}, want: []string{"python"}},
		{name: "python tox", files: map[string]string{"tox.ini": ""}, want: []string{"python"}},
		{name: "node with scripts", files: map[string]string{"package.json": `{"scripts":{"test":"vitest run","lint":"eslint ."}}`},
			want: []string{"node"}, scripts: []string{"lint", "test"}},
		{name: "node unparsable", files: map[string]string{"package.json": `{`}, want: []string{"node"}},
		{name: "rust", files: map[string]string{"Cargo.toml": ""}, want: []string{"rust"}},
		{name: "several", files: map[string]string{"go.mod": "", "Cargo.toml": "", "setup.py": ""}, want: []string{"go", "python", "rust"}},
		{name: "manifest in a subdirectory only", files: map[string]string{"sub/go.mod": ""}},
		{name: "a directory named like a manifest", files: map[string]string{"Cargo.toml/x": ""}},
		{name: "a link is not a manifest", link: "package.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			writeFiles(t, ws, tt.files)
			if tt.link != "" {
				outside := filepath.Join(t.TempDir(), "package.json")
				require.NoError(t, os.WriteFile(outside, []byte(`{"scripts":{"x":"y"}}`), 0o644))
				require.NoError(t, os.Symlink(outside, filepath.Join(ws, tt.link)))
			}
			p, err := Detect(ws)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Ecosystems)
			assert.Equal(t, tt.scripts, p.Scripts)
		})
	}
}

func TestCheckEcosystems(t *testing.T) {
	t.Parallel()
	node := &Project{Ecosystems: []string{"node"}, Scripts: []string{"lint", "test"}, known: true,
		scripts: map[string]string{"test": "vitest run", "lint": "eslint ."}}
	tests := []struct {
		name   string
		tier   Tier
		argv   string
		p      *Project
		want   Verdict
		reason string
	}{
		{name: "pytest", tier: TierTest, argv: "pytest -q tests", want: AllowedSandboxed},
		{name: "python -m pytest", tier: TierTest, argv: "python -m pytest", want: AllowedSandboxed},
		{name: "python3 -m pytest", tier: TierTest, argv: "python3 -m pytest -x", want: AllowedSandboxed},
		{name: "python -m unittest", tier: TierTest, argv: "python -m unittest discover", want: AllowedSandboxed},
		{name: "pytest at build", tier: TierBuild, argv: "pytest", want: Refused, reason: "needs --verify test"},
		{name: "python -c", tier: TierTest, argv: "python3 -c print", want: Refused, reason: "only as python3 -m pytest"},
		{name: "python -m pip", tier: TierTest, argv: "python3 -m pip install x", want: Refused, reason: "only as python3 -m pytest"},
		{name: "python script", tier: TierTest, argv: "python setup.py test", want: Refused, reason: "only as python -m pytest"},
		{name: "tox", tier: TierTest, argv: "tox", want: Refused, reason: "tox is not a verification command"},
		{name: "npm test", tier: TierTest, argv: "npm test", want: AllowedSandboxed},
		{name: "npm test at build", tier: TierBuild, argv: "npm test", want: Refused, reason: "needs --verify test"},
		{name: "npm run, no workspace", tier: TierTest, argv: "npm run anything", want: AllowedSandboxed},
		{name: "npm run a script", tier: TierTest, argv: "npm run lint", p: node, want: AllowedSandboxed},
		{name: "npm run no such script", tier: TierTest, argv: "npm run deploy", p: node, want: Refused, reason: "names no script deploy (scripts: lint, test)"},
		{name: "npm run a flag", tier: TierTest, argv: "npm run --help", want: Refused, reason: "not a verification command"},
		{name: "npm install", tier: TierTest, argv: "npm install", want: Refused, reason: "not a verification command"},
		{name: "npm exec", tier: TierTest, argv: "npm exec x", want: Refused, reason: "not a verification command"},
		{name: "node --test", tier: TierTest, argv: "node --test", want: AllowedSandboxed},
		{name: "node a script", tier: TierTest, argv: "node index.js", want: Refused, reason: "not a verification command"},
		{name: "npx a runner a script names", tier: TierTest, argv: "npx vitest run", p: node, want: AllowedSandboxed},
		{name: "npx a runner no script names", tier: TierTest, argv: "npx jest", p: node, want: Refused, reason: "no script in package.json names jest"},
		{name: "npx anything", tier: TierTest, argv: "npx cowsay", want: Refused, reason: "not a verification command"},
		{name: "npx a flag", tier: TierTest, argv: "npx -p x vitest", want: Refused, reason: "not a verification command"},
		{name: "cargo test", tier: TierTest, argv: "cargo test --all", want: AllowedSandboxed},
		{name: "cargo build", tier: TierTest, argv: "cargo build", want: AllowedSandboxed},
		{name: "cargo check", tier: TierTest, argv: "cargo check", want: AllowedSandboxed},
		{name: "cargo clippy", tier: TierTest, argv: "cargo clippy", want: AllowedSandboxed},
		{name: "cargo build at build", tier: TierBuild, argv: "cargo build", want: Refused, reason: "runs its build scripts"},
		{name: "cargo run", tier: TierTest, argv: "cargo run", want: Refused, reason: "cargo allows only build, check, clippy, test, got run"},
		{name: "cargo install", tier: TierTest, argv: "cargo install x", want: Refused, reason: "got install"},
		{name: "cargo +nightly", tier: TierTest, argv: "cargo +nightly test", want: Refused, reason: "got +nightly"},
		{name: "cargo --config", tier: TierTest, argv: "cargo test --config x", want: Refused, reason: "--config is never allowed"},
		{name: "cargo -Z", tier: TierTest, argv: "cargo test -Zunstable-options", want: Refused, reason: "never allowed"},
		{name: "cargo manifest outside", tier: TierTest, argv: "cargo test --manifest-path=../x/Cargo.toml", want: Refused, reason: "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := CheckProject(tt.tier, strings.Fields(tt.argv), tt.p)
			assert.Equal(t, tt.want, d.Verdict, "reason: %s", d.Reason)
			if tt.reason != "" {
				assert.Contains(t, d.Reason, tt.reason)
			}
		})
	}
}

// TestAllowedInNamesTheProject: the list the prompt is made of holds the
// commands of the ecosystems found, with package.json's own scripts, and
// every one of them passes the policy for that project.
func TestAllowedInNamesTheProject(t *testing.T) {
	t.Parallel()
	p := &Project{Ecosystems: []string{"python", "node"}, Scripts: []string{"lint", "test"}, known: true,
		scripts: map[string]string{"test": "npx jest --ci", "lint": "eslint ."}}
	var commands []string
	for _, a := range AllowedIn(TierTest, p) {
		commands = append(commands, a.Command)
		assert.True(t, a.Sandboxed, a.Command)
		words := strings.Fields(a.Command)
		for _, alt := range strings.Split(words[len(words)-1], "|") {
			argv := append(append([]string{}, words[:len(words)-1]...), alt)
			assert.Equal(t, AllowedSandboxed, CheckProject(TierTest, argv, p).Verdict, argv)
		}
	}
	assert.Equal(t, []string{"pytest", "python -m pytest|unittest", "python3 -m pytest|unittest",
		"npm test", "npm run lint|test", "node --test", "npx jest"}, commands)
	assert.Empty(t, AllowedIn(TierBuild, p), "nothing of Python or Node runs at the build tier")
	var all []string
	for _, a := range AllowedIn(TierTest, &Project{known: true}) {
		all = append(all, a.Ecosystem)
	}
	for _, e := range Ecosystems() {
		assert.Contains(t, all, e.Name, "a project of no known ecosystem is told every ecosystem's commands")
	}
}

func TestAppliesSaysWhyNot(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n"})
	sb := New(Config{Home: t.TempDir(), Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME")})
	err := sb.Applies(t.Context(), ws, []string{"go", "test", "./..."})
	var na *NotApplicable
	require.True(t, errors.As(err, &na), "got %v", err)
	assert.Equal(t, "no go.mod or go.work: go test does not apply here", na.Reason)
	assert.NoError(t, sb.Applies(t.Context(), ws, []string{"gofmt", "-l", "."}), "gofmt formats any Go file: it needs no go.mod")
	err = sb.Applies(t.Context(), ws, []string{"cargo", "test"})
	require.True(t, errors.As(err, &na), "got %v", err)
	assert.Contains(t, na.Reason, "no Cargo.toml: cargo test does not apply here")

}

// TestHostToolchainMissing: the pre-flight names what the host's PATH
// lacks and how to get it, and a check that needs it cannot apply; pytest
// is not missing where pip3 is, which fetches it.
func TestHostToolchainMissing(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"pyproject.toml": "[project]\nname = \"app\"\n"})
	hint := "; or install pip3: core then fetches pytest itself, wheels only"
	tests := []struct {
		name     string
		programs []string
		missing  []string // the pre-flight's lines
		refused  []string // the checks that cannot apply
	}{
		{name: "nothing", missing: []string{"no python3, pytest on PATH: " + pythonEcosystem().Toolchain + hint},
			refused: []string{"pytest", "python3 -m pytest", "python3 -m unittest"}},
		{name: "python3 alone", programs: []string{"python3"}, missing: []string{"no pytest on PATH: " + pythonEcosystem().Toolchain + hint},
			refused: []string{"pytest", "python3 -m pytest"}},
		{name: "python3 and pip3", programs: []string{"python3", "pip3"}},
		{name: "python3 and pytest", programs: []string{"python3", "pytest"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := New(Config{Home: t.TempDir(), Path: programsDir(t, tt.programs...)})
			p, err := Detect(ws)
			require.NoError(t, err)
			assert.Equal(t, tt.missing, sb.Missing(t.Context(), p))
			for _, check := range []string{"pytest", "python3 -m pytest", "python3 -m unittest"} {
				err := sb.Applies(t.Context(), ws, strings.Fields(check))
				if !slices.Contains(tt.refused, check) {
					assert.NoError(t, err, check)
					continue
				}
				var na *NotApplicable
				require.ErrorAs(t, err, &na, check)
				assert.Equal(t, tt.missing[0], na.Reason)
			}
		})
	}
}

func TestParseToolchainImages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     map[string]string
		err      string
	}{
		{name: "defaults", in: "", want: DefaultToolchainImages()},
		{name: "over the defaults", in: "node=ghcr.io/o/node:22\npython=none",
			want: map[string]string{"python": "", "node": "ghcr.io/o/node:22", "rust": DefaultToolchainImages()["rust"]}},
		{name: "go is core's own image", in: "go=golang:1", err: `ecosystem python, node or rust (e.g. python=python:3.13-slim), got "go=golang:1"`},
		{name: "a tool is not an ecosystem", in: "pytest=x", err: `got "pytest=x"`},
		{name: "no image", in: "python=", err: `got "python="`},
		{name: "no pair", in: "python:3", err: `got "python:3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseToolchainImages(tt.in)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestCommandEnv: a Python command imports the workspace's package (and
// its src layout's) before the fetched dependencies; a link named src is
// not followed; other ecosystems get their dependencies' variables as
// they are.
func TestCommandEnv(t *testing.T) {
	t.Parallel()
	flat, withSrc, linked := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(withSrc, "src"), 0o755))
	require.NoError(t, os.Symlink("/etc", filepath.Join(linked, "src")))
	deps := depsView{env: []string{"PYTHONPATH=" + depsInside + "/python", "X=1"}}
	tests := []struct {
		name, tool, ws string
		mountAt        string
		deps           depsView
		want           string
	}{
		{name: "flat", tool: "pytest", ws: flat, want: "PYTHONPATH=" + flat},
		{name: "a checkout seen at the workspace's path", tool: "python3", ws: withSrc, mountAt: "/work/ws", deps: deps,
			want: "PYTHONPATH=/work/ws:/work/ws/src:" + depsInside + "/python"},
		{name: "src layout and dependencies", tool: "python3", ws: withSrc, deps: deps,
			want: "PYTHONPATH=" + withSrc + ":" + withSrc + "/src:" + depsInside + "/python"},
		{name: "a link named src", tool: "pytest", ws: linked, want: "PYTHONPATH=" + linked},
		{name: "not python", tool: "npm", ws: flat, deps: depsView{env: []string{"X=1"}}, want: "X=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := commandEnv(tt.tool, RunOptions{Workspace: tt.ws, MountAt: tt.mountAt, deps: tt.deps})
			assert.Contains(t, env, tt.want)
			n := 0
			for _, kv := range env {
				if strings.HasPrefix(kv, "PYTHONPATH=") {
					n++
				}
			}
			assert.LessOrEqual(t, n, 1, "one PYTHONPATH: %q", env)
		})
	}
}

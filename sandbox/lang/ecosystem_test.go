package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

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
			testkit.WriteFiles(t, ws, tt.files)
			if tt.link != "" {
				outside := filepath.Join(t.TempDir(), "package.json")
				require.NoError(t, os.WriteFile(outside, []byte(`{"scripts":{"x":"y"}}`), 0o644))
				require.NoError(t, os.Symlink(outside, filepath.Join(ws, tt.link)))
			}
			p, err := Detect(ws, nil)
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

// TestDetectAsksWhatTheStepFetches: Detect asks the sandbox whether the
// dependency step fetches pytest only for a Python project, and the
// project says what it was told.
func TestDetectAsksWhatTheStepFetches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		fetches func(ws, name string) bool
		asked   []string
		want    []string
	}{
		{name: "python, fetched", files: map[string]string{"requirements.txt": "pytest\n"}, fetches: func(string, string) bool { return true },
			asked: []string{"pytest"}, want: []string{"pytest"}},
		{name: "python, not fetched", files: map[string]string{"requirements.txt": ""}, fetches: func(string, string) bool { return false },
			asked: []string{"pytest"}},
		{name: "python, nobody to ask", files: map[string]string{"requirements.txt": "pytest\n"}},
		{name: "not python", files: map[string]string{"go.mod": "module x\n"}, fetches: func(string, string) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			testkit.WriteFiles(t, ws, tt.files)
			var asked []string
			fetches := tt.fetches
			if fetches != nil {
				fetches = func(dir, name string) bool {
					assert.Equal(t, ws, dir)
					asked = append(asked, name)
					return tt.fetches(dir, name)
				}
			}
			p, err := Detect(ws, fetches)
			require.NoError(t, err)
			assert.Equal(t, tt.asked, asked)
			assert.Equal(t, tt.want, p.Fetches())
		})
	}
}

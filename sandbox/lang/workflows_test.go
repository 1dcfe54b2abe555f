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

const ciWorkflow = `name: CI
on: [push]
jobs:
  test:
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - name: Install
        run: pip install -r requirements.txt
      - name: Tests
        run: |
          # the suite
          python -m pytest -q
          pytest --cov=${{ matrix.python }}
      - name: Lint
        run: ruff check .
      - name: Docs
        working-directory: docs
        run: pytest docs
      - name: Flaky
        continue-on-error: true
        run: python -m unittest
  other:
    steps:
      - run: go test ./...
      - run: python -m pytest -q
`

func TestChecksFromCI(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{"pyproject.toml": "", ".github/workflows/ci.yml": ciWorkflow, ".github/workflows/notes.txt": "run: pytest"})
	p, err := Detect(ws, nil)
	require.NoError(t, err)
	got, err := ChecksFromCI(ws, TierTest, &p)
	require.NoError(t, err)
	require.Len(t, got.Taken, 1)
	assert.Equal(t, CIStep{File: ".github/workflows/ci.yml", Job: "test", Step: "Tests", Command: "python -m pytest -q", Argv: []string{"python", "-m", "pytest", "-q"}}, got.Taken[0])
	assert.Equal(t, `ci.yml, job test, step "Tests"`, got.Taken[0].String())
	reasons := map[string]string{}
	for _, s := range got.Skipped {
		reasons[s.Command] = s.Reason
	}
	assert.Equal(t, map[string]string{
		"go test ./...":                     "no go.mod or go.work at the top of the repository: it does not apply here",
		"pip install -r requirements.txt":   "pip is not a verification command at tier test (allowed: " + allowedList(TierTest) + ")",
		"pytest --cov=${{ matrix.python }}": "not a plain command: it holds shell syntax or an expression",
		"ruff check .":                      "ruff is not a verification command at tier test (allowed: " + allowedList(TierTest) + ")",
		"pytest docs":                       "it runs in docs; core's checks run at the repository's top",
		"python -m unittest":                "continue-on-error: its failure does not fail the CI",
	}, reasons)
	assert.Equal(t, []string{".github/workflows/ci.yml"}, got.Files)

	build, err := ChecksFromCI(ws, TierBuild, &p)
	require.NoError(t, err)
	assert.Empty(t, build.Taken, "pytest runs workspace code: nothing at the build tier")
}

func TestChecksFromCIHostileWorkflows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(t *testing.T, ws string)
		reason string // of the one skipped entry; "" for none
	}{
		{name: "no workflows", setup: func(*testing.T, string) {}},
		{name: "the directory is a link", setup: func(t *testing.T, ws string) {
			outside := t.TempDir()
			testkit.WriteFiles(t, outside, map[string]string{"ci.yml": "jobs:\n  a:\n    steps:\n      - run: pytest\n"})
			require.NoError(t, os.MkdirAll(filepath.Join(ws, ".github"), 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(ws, ".github", "workflows")))
		}},
		{name: "a workflow is a link", setup: func(t *testing.T, ws string) {
			outside := filepath.Join(t.TempDir(), "ci.yml")
			require.NoError(t, os.WriteFile(outside, []byte("jobs:\n  a:\n    steps:\n      - run: pytest\n"), 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(ws, workflowsDir), 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(ws, workflowsDir, "ci.yml")))
		}},
		{name: "too big", setup: func(t *testing.T, ws string) {
			testkit.WriteFiles(t, ws, map[string]string{workflowsDir + "/ci.yml": "jobs: {}\n" + strings.Repeat("#", maxWorkflowSize)})
		}, reason: "not read: "},
		{name: "not YAML", setup: func(t *testing.T, ws string) {
			testkit.WriteFiles(t, ws, map[string]string{workflowsDir + "/ci.yml": "jobs: [\n"})
		}, reason: "not parsed: "},
		{name: "an alias bomb", setup: func(t *testing.T, ws string) {
			bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
			for i, prev := 0, "a"; i < 9; i++ {
				name := string(rune('b' + i))
				bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
				prev = name
			}
			testkit.WriteFiles(t, ws, map[string]string{workflowsDir + "/ci.yml": bomb + "jobs:\n  a:\n    steps: *j\n"})
		}, reason: "not parsed: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			testkit.WriteFiles(t, ws, map[string]string{"pyproject.toml": ""})
			tt.setup(t, ws)
			p, err := Detect(ws, nil)
			require.NoError(t, err)
			got, err := ChecksFromCI(ws, TierTest, &p)
			require.NoError(t, err)
			assert.Empty(t, got.Taken)
			if tt.reason == "" {
				assert.Empty(t, got.Skipped)
				return
			}
			require.Len(t, got.Skipped, 1)
			assert.Contains(t, got.Skipped[0].Reason, tt.reason)
		})
	}
}

// TestCICheck: a workflow's command line is a check only where the tier
// would run it unattended here, at the repository's top, failing the CI
// when it fails, and reporting rather than changing go.mod.
func TestCICheck(t *testing.T) {
	t.Parallel()
	python := &Project{Ecosystems: []string{"python"}, known: true}
	tests := []struct {
		name            string
		tier            Tier
		p               *Project
		line, dir       string
		continueOnError any
		want            []string
		reason          string // substring of why not
	}{
		{name: "a test at the top", tier: TierTest, p: python, line: "pytest -q", want: []string{"pytest", "-q"}},
		{name: "the top spelled ./", tier: TierTest, p: python, line: "pytest", dir: "./", want: []string{"pytest"}},
		{name: "the top spelled .", tier: TierTest, p: python, line: "pytest", dir: " . ", want: []string{"pytest"}},
		{name: "a subdirectory", tier: TierTest, p: python, line: "pytest", dir: "./sub/", reason: "it runs in ./sub/"},
		{name: "continue-on-error", tier: TierTest, p: python, line: "pytest", continueOnError: true, reason: "continue-on-error"},
		{name: "continue-on-error false", tier: TierTest, p: python, line: "pytest", continueOnError: false, want: []string{"pytest"}},
		{name: "continue-on-error an expression", tier: TierTest, p: python, line: "pytest", continueOnError: "${{ matrix.x }}", want: []string{"pytest"}},
		{name: "shell syntax", tier: TierTest, p: python, line: "pytest && rm -rf /", reason: "not a plain command"},
		{name: "an expression", tier: TierTest, p: python, line: "pytest ${{ matrix.args }}", reason: "not a plain command"},
		{name: "refused by the tier", tier: TierBuild, p: python, line: "pytest", reason: "needs --verify test"},
		{name: "refused at off", tier: TierOff, p: python, line: "go vet ./...", reason: "verification is off"},
		{name: "not a verification command", tier: TierTest, p: python, line: "make test", reason: "make is not a verification command"},
		{name: "a network step", tier: TierBuild, line: "go mod tidy", reason: "it fetches and may change go.mod"},
		{name: "another ecosystem's", tier: TierTest, p: python, line: "go test ./...", reason: "no go.mod or go.work at the top"},
		{name: "no project known", tier: TierTest, line: "go test ./...", want: []string{"go", "test", "./..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			argv, why := ciCheck(tt.tier, tt.p, tt.line, tt.dir, tt.continueOnError)
			assert.Equal(t, tt.want, argv, why)
			if tt.reason == "" {
				assert.Empty(t, why)
				return
			}
			assert.Contains(t, why, tt.reason)
		})
	}
}

package lang

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A refusal tells the model what it asked for and what is allowed
// instead, word for word: the reason is the rule as the model reads it.
func TestRefusalReasons(t *testing.T) {
	t.Parallel()
	node := &Project{Ecosystems: []string{"node"}, Scripts: []string{"lint", "test"}, known: true,
		scripts: map[string]string{"lint": "eslint .", "test": "vitest run"}}
	tests := []struct {
		name   string
		tier   Tier
		argv   string
		p      *Project
		reason string
	}{
		{name: "go mod edit", tier: TierBuild, argv: "go mod edit -go=1.22",
			reason: "go mod allows only download, tidy, verify, why, graph, got edit"},
		{name: "go mod alone", tier: TierBuild, argv: "go mod",
			reason: "go mod allows only download, tidy, verify, why, graph, got nothing"},
		{name: "gofmt -w", tier: TierBuild, argv: "gofmt -w .",
			reason: "gofmt flag -w is not allowed: gofmt may only report (-l -d -s -e)"},
		{name: "npm test at build", tier: TierBuild, argv: "npm test",
			reason: "npm test runs workspace code: it needs --verify test"},
		{name: "npm run at build", tier: TierBuild, argv: "npm run lint", p: node,
			reason: "npm run lint runs workspace code: it needs --verify test"},
		{name: "npm run of no script", tier: TierTest, argv: "npm run build", p: node,
			reason: "npm run build: package.json names no script build (scripts: lint, test)"},
		{name: "npm run with no scripts", tier: TierTest, argv: "npm run build", p: &Project{Ecosystems: []string{"node"}, known: true},
			reason: "npm run build: package.json names no script build (scripts: none)"},
		{name: "node --test at build", tier: TierBuild, argv: "node --test",
			reason: "node --test runs workspace code: it needs --verify test"},
		{name: "npx at build", tier: TierBuild, argv: "npx vitest",
			reason: "npx vitest runs workspace code: it needs --verify test"},
		{name: "npx of a runner no script names", tier: TierTest, argv: "npx jest", p: node,
			reason: "npx jest: no script in package.json names jest; npx runs only the test runners the scripts name"},
		{name: "npm install", tier: TierTest, argv: "npm install",
			reason: "npm install is not a verification command (allowed: npm test, npm run <a script package.json names>, node --test, npx <a test runner a script names: vitest, jest, mocha, ava, tap>)"},
		{name: "pytest at build", tier: TierBuild, argv: "pytest -q",
			reason: "pytest runs workspace code: it needs --verify test"},
		{name: "python -m pytest at build", tier: TierBuild, argv: "python3 -m pytest",
			reason: "python3 -m pytest runs workspace code: it needs --verify test"},
		{name: "python -c", tier: TierTest, argv: "python3 -c pytest",
			reason: "python3 is allowed only as python3 -m pytest or python3 -m unittest"},
		{name: "cargo run", tier: TierTest, argv: "cargo run",
			reason: "cargo allows only build, check, clippy, test, got run"},
		{name: "cargo alone", tier: TierTest, argv: "cargo",
			reason: "cargo allows only build, check, clippy, test, got nothing"},
		{name: "cargo test at build", tier: TierBuild, argv: "cargo test",
			reason: "cargo test compiles the workspace, which runs its build scripts and macros: it needs --verify test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := CheckProject(tt.tier, strings.Fields(tt.argv), tt.p)
			assert.Equal(t, Refused, d.Verdict)
			assert.Equal(t, tt.reason, d.Reason)
		})
	}
}

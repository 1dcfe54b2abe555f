package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnvironmentCause classifies real output lines, as the tools print
// them, into the environment's causes; a failure of the code's own stays
// the code's.
func TestEnvironmentCause(t *testing.T) {
	t.Parallel()
	local := func(name string) bool { return name == "mypkg" }
	red := CheckResult{Exit: 1}
	tests := []struct {
		name     string
		res      CheckResult
		output   string
		setup    bool
		cause    string
		evidence string
	}{
		{name: "dash: a tool not found", res: CheckResult{Exit: 127},
			output: "> mylib@1.0.0 test\n> xo && ava\n\nsh: 1: xo: not found\n",
			cause:  "a tool is missing: xo", evidence: "sh: 1: xo: not found"},
		{name: "bash: command not found", res: CheckResult{Exit: 127},
			output: "bash: line 1: pytest: command not found\n",
			cause:  "a tool is missing: pytest", evidence: "bash: line 1: pytest: command not found"},
		{name: "env: no interpreter", res: CheckResult{Exit: 127},
			output: "/usr/bin/env: 'node': No such file or directory\n",
			cause:  "a tool is missing: node", evidence: "/usr/bin/env: 'node': No such file or directory"},
		{name: "exit 127 with nothing else to show", res: CheckResult{Exit: 127},
			output: "running\nsomething odd\n",
			cause:  "a tool is missing (exit 127: command not found)", evidence: "something odd"},
		{name: "nyc writes node_modules/.cache", res: red,
			output: "Error: EROFS: read-only file system, mkdir '/w/node_modules/.cache/nyc'\n    at Object.mkdirSync (node:fs:1391:3)\n",
			cause:  causeReadOnly, evidence: "Error: EROFS: read-only file system, mkdir '/w/node_modules/.cache/nyc'"},
		{name: "python writes a read-only path", res: red,
			output: "OSError: [Errno 30] Read-only file system: '/w/.pytest_cache'\n",
			cause:  causeReadOnly, evidence: "OSError: [Errno 30] Read-only file system: '/w/.pytest_cache'"},
		{name: "pip cannot reach its index", res: red,
			output: "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused')': /simple/eseries/\n" +
				"ERROR: Could not find a version that satisfies the requirement eseries (from versions: none)\nERROR: No matching distribution found for eseries\n",
			cause: causeUnreachable, evidence: clip.Line("WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused')': /simple/eseries/", maxEvidence)},
		{name: "pip finds no version", res: red,
			output: "ERROR: Could not find a version that satisfies the requirement parfit (from versions: none)\n",
			cause:  causeUnreachable, evidence: "ERROR: Could not find a version that satisfies the requirement parfit (from versions: none)"},
		{name: "npm 6 ENOTFOUND", res: red,
			output: "npm ERR! code ENOTFOUND\nnpm ERR! errno ENOTFOUND\nnpm ERR! network getaddrinfo ENOTFOUND registry.npmjs.org registry.npmjs.org:443\n",
			cause:  causeUnreachable, evidence: "npm ERR! code ENOTFOUND"},
		{name: "npm 10 ECONNREFUSED", res: red,
			output: "npm error code ECONNREFUSED\nnpm error errno ECONNREFUSED\n",
			cause:  causeUnreachable, evidence: "npm error code ECONNREFUSED"},
		{name: "a test's own refused connection is the code's", res: red,
			output: "not ok 1 - connects\n  Error: connect ECONNREFUSED 127.0.0.1:3000\n"},
		{name: "cargo cannot resolve the index", res: CheckResult{Exit: 101},
			output: "    Updating crates.io index\nwarning: spurious network error (2 tries remaining): [6] Couldn't resolve host name (Could not resolve host: index.crates.io)\n",
			cause:  causeUnreachable, evidence: "warning: spurious network error (2 tries remaining): [6] Couldn't resolve host name (Could not resolve host: index.crates.io)"},
		{name: "cargo fails to download", res: CheckResult{Exit: 101},
			output: "error: failed to get `anyhow` as a dependency of package `geckodriver v0.35.0`\n\nCaused by:\n  failed to download from `https://index.crates.io/config.json`\n",
			cause:  causeUnreachable, evidence: "failed to download from `https://index.crates.io/config.json`"},
		{name: "go cannot reach its proxy", res: red,
			output: "go: example.com/dep@v1.2.0: Get \"http://127.0.0.1:9/example.com/dep/@v/v1.2.0.mod\": dial tcp 127.0.0.1:9: connect: connection refused\n",
			cause:  causeUnreachable, evidence: "go: example.com/dep@v1.2.0: Get \"http://127.0.0.1:9/example.com/dep/@v/v1.2.0.mod\": dial tcp 127.0.0.1:9: connect: connection refused"},
		{name: "go: the module cache lacks a module", res: red,
			output: "go: example.com/dep@v1.2.0: module lookup disabled by GOPROXY=off\n",
			cause:  causeDepMissing, evidence: "go: example.com/dep@v1.2.0: module lookup disabled by GOPROXY=off"},
		{name: "go: no module provides a package", res: red,
			output: "main.go:4:2: no required module provides package github.com/google/uuid; to add it:\n\tgo get github.com/google/uuid\n",
			cause:  causeDepMissing + ": github.com/google/uuid", evidence: "main.go:4:2: no required module provides package github.com/google/uuid; to add it:"},
		{name: "go: missing go.sum entry", res: red,
			output: "main.go:4:2: missing go.sum entry for module providing package github.com/google/uuid (imported by m); to add:\n",
			cause:  causeDepMissing + ": github.com/google/uuid", evidence: "main.go:4:2: missing go.sum entry for module providing package github.com/google/uuid (imported by m); to add:"},
		{name: "python: a package not installed", res: CheckResult{Exit: 2},
			output: "ImportError while importing test module '/w/tests/test_a.py'.\nE   ModuleNotFoundError: No module named 'requests'\n",
			cause:  causeDepMissing + ": requests", evidence: "E ModuleNotFoundError: No module named 'requests'"},
		{name: "python: the repository's own module is the code's", res: CheckResult{Exit: 2},
			output: "E   ModuleNotFoundError: No module named 'mypkg.helpers'\n"},
		{name: "node: a package not installed", res: red,
			output: "Error: Cannot find module 'tap'\nRequire stack:\n- /w/test/a.js\n",
			cause:  causeDepMissing + ": tap", evidence: "Error: Cannot find module 'tap'"},
		{name: "node ESM: a package not installed", res: red,
			output: "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'chai' imported from /w/test/a.test.js\n",
			cause:  causeDepMissing + ": chai", evidence: "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'chai' imported from /w/test/a.test.js"},
		{name: "node: a file of the repository is the code's", res: red,
			output: "Error: Cannot find module './lib/parse'\n"},
		{name: "core's module download failed", res: CheckResult{Exit: -1}, setup: true,
			output: "core: the module download ran past its own timeout of 10m0s\n",
			cause:  causeSetup, evidence: "core: the module download ran past its own timeout of 10m0s"},
		{name: "a failing test is the code's", res: red,
			output: "--- FAIL: TestAdd (0.00s)\n    add_test.go:9: Add(1, 2) = 4, want 3\nFAIL\n"},
		{name: "a pass is nobody's failure", res: CheckResult{Passed: true}, output: "sh: 1: xo: not found\n"},
		{name: "a timeout is judged by both sides, not here", res: CheckResult{Exit: -1, TimedOut: true}, output: "sh: 1: xo: not found\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cause, evidence := environmentCause(tt.res, tt.output, tt.setup, local)
			assert.Equal(t, tt.cause, cause)
			assert.Equal(t, tt.evidence, evidence)
		})
	}
}

func TestEnvironmentCauseBoundsEvidence(t *testing.T) {
	t.Parallel()
	_, evidence := environmentCause(CheckResult{Exit: 1}, "Error: EROFS: read-only file system, mkdir '"+strings.Repeat("a", 5000)+"'\n", false, nil)
	assert.LessOrEqual(t, len([]rune(evidence)), maxEvidence)
}

func TestRepoModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alone.py"), nil, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src", "pkg"), 0o755))
	require.NoError(t, os.Symlink("/usr", filepath.Join(dir, "linked")))
	local := RepoModule(dir)
	assert.True(t, local("alone"))
	assert.True(t, local("pkg"), "under src/")
	assert.True(t, local("linked"), "a link is seen, not followed")
	assert.False(t, local("requests"))
	assert.False(t, local("../etc"), "one path element only")
	assert.False(t, local(""))
}

func TestContractUnjudgedRender(t *testing.T) {
	t.Parallel()
	c := NewContract([]CheckRun{checkRun("npm test", noTool, noTool), checkRun("npm run build", red, green)}, 2*time.Minute)
	require.True(t, c.Unjudged())
	assert.False(t, c.Held())
	assert.False(t, c.Broken(), "the environment's outcome is never broken")
	var b strings.Builder
	c.WriteText(&b)
	assert.Contains(t, b.String(), "  npm test — could not judge (the environment's): base exit 127, result exit 127 (0.2s, sandboxed)\n"+
		"    UNVERIFIED: the environment's, not the code's: a tool is missing: xo (sh: 1: xo: not found)\n")
	assert.Contains(t, b.String(), "contract unjudged: npm test could not be judged (a tool is missing: xo)\n")
	assert.NotContains(t, b.String(), "broken")

	md := c.Markdown()
	assert.Contains(t, md, "| `npm test` | **UNVERIFIED**: could not judge (the environment's): a tool is missing: xo | exit 127 (0.2s, sandboxed) | exit 127 (0.2s, sandboxed) |")
	assert.Contains(t, md, "- `npm test` is UNVERIFIED: the environment's, not the code's: a tool is missing: xo: `sh: 1: xo: not found`")
	assert.Contains(t, md, "**Contract unjudged: npm test could not be judged (a tool is missing: xo).**")
	assert.Equal(t, "**UNVERIFIED**: contract unjudged: npm test could not be judged (a tool is missing: xo)", c.StatusLine())
	assert.NotContains(t, md+c.StatusLine(), "failing")
}

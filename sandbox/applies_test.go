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

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
)

// writeFiles writes files (slash-separated names) into dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	testkit.WriteFiles(t, dir, files)
}

func TestAppliesSaysWhyNot(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n"})
	sb := New(Config{Home: t.TempDir(), Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME")})
	err := sb.Applies(t.Context(), ws, []string{"go", "test", "./..."})
	var na *lang.NotApplicable
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
			p, err := lang.Detect(ws, deps.PythonFetches)
			require.NoError(t, err)
			assert.Equal(t, tt.missing, sb.Missing(t.Context(), p))
			for _, check := range []string{"pytest", "python3 -m pytest", "python3 -m unittest"} {
				err := sb.Applies(t.Context(), ws, strings.Fields(check))
				if !slices.Contains(tt.refused, check) {
					assert.NoError(t, err, check)
					continue
				}
				var na *lang.NotApplicable
				require.ErrorAs(t, err, &na, check)
				assert.Equal(t, tt.missing[0], na.Reason)
			}
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
	view := deps.View{Env: []string{"PYTHONPATH=" + deps.Inside + "/python", "X=1"}}
	tests := []struct {
		name, tool, ws string
		mountAt        string
		deps           deps.View
		want           string
	}{
		{name: "flat", tool: "pytest", ws: flat, want: "PYTHONPATH=" + flat},
		{name: "a checkout seen at the workspace's path", tool: "python3", ws: withSrc, mountAt: "/work/ws", deps: view,
			want: "PYTHONPATH=/work/ws:/work/ws/src:" + deps.Inside + "/python"},
		{name: "src layout and dependencies", tool: "python3", ws: withSrc, deps: view,
			want: "PYTHONPATH=" + withSrc + ":" + withSrc + "/src:" + deps.Inside + "/python"},
		{name: "a link named src", tool: "pytest", ws: linked, want: "PYTHONPATH=" + linked},
		{name: "not python", tool: "npm", ws: flat, deps: deps.View{Env: []string{"X=1"}}, want: "X=1"},
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

// pythonEcosystem is Python's row of the table.
func pythonEcosystem() lang.Ecosystem {
	e, _ := lang.EcosystemOf("python3")
	return e
}

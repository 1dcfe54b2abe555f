package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
)

// TestOfferedCommandsAreTheToolchains: python -m pytest is offered only
// where there is a python; where there is only python3 (Debian), the
// model is told python3's commands, and a python command run anyway says
// to run python3, not to install what is installed. A workspace of plain
// modules and tests is Python, and pytest applies there.
func TestOfferedCommandsAreTheToolchains(t *testing.T) {
	t.Parallel()
	manifest, plain := t.TempDir(), t.TempDir()
	writeFiles(t, manifest, map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\n"})
	writeFiles(t, plain, map[string]string{"calc.py": "", "test_calc.py": ""})
	tests := []struct {
		name     string
		programs []string
		offered  []string
		python   string // why python -m pytest cannot apply; "" when it can
	}{
		{name: "debian", programs: []string{"python3", "pytest"},
			offered: []string{"pytest", "python3 -m pytest|unittest"},
			python:  "no python on PATH (this toolchain has python3): run python3 -m pytest -q"},
		{name: "python too", programs: []string{"python3", "python", "pytest"},
			offered: []string{"pytest", "python -m pytest|unittest", "python3 -m pytest|unittest"}},
	}
	for _, tt := range tests {
		for _, ws := range []string{manifest, plain} {
			t.Run(tt.name+"/"+map[string]string{manifest: "manifest", plain: "plain"}[ws], func(t *testing.T) {
				t.Parallel()
				sb := New(Config{Home: t.TempDir(), Path: programsDir(t, tt.programs...)})
				p, err := lang.Detect(ws, deps.PythonFetches)
				require.NoError(t, err)
				sb.Locate(t.Context(), &p)
				var got []string
				for _, a := range lang.AllowedIn(lang.TierTest, &p) {
					got = append(got, a.Command)
				}
				assert.Equal(t, tt.offered, got)
				assert.Empty(t, sb.Missing(t.Context(), p), "the pre-flight blames nothing")
				for _, check := range []string{"pytest -q", "python3 -m pytest -q"} {
					assert.NoError(t, sb.Applies(t.Context(), ws, strings.Fields(check)), check)
				}
				err = sb.Applies(t.Context(), ws, strings.Fields("python -m pytest -q"))
				if tt.python == "" {
					assert.NoError(t, err)
					return
				}
				var na *lang.NotApplicable
				require.ErrorAs(t, err, &na)
				assert.Equal(t, tt.python, na.Reason)
			})
		}
	}
}

// TestAppliesWithoutManifest: with neither manifest nor tests, pytest does
// not apply, and the reason names what would have made it.
func TestAppliesWithoutManifest(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"calc.py": ""})
	sb := New(Config{Home: t.TempDir(), Path: t.TempDir()})
	var na *lang.NotApplicable
	require.ErrorAs(t, sb.Applies(t.Context(), ws, []string{"pytest"}), &na)
	assert.Equal(t, "no pyproject.toml or setup.py or setup.cfg or requirements*.txt or tox.ini or pytest.ini or "+pythonEcosystem().Inferred+": pytest does not apply here", na.Reason)
}

// programsDir is a directory of empty executables named programs, for a
// PATH that has exactly those.
func programsDir(t *testing.T, programs ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, p := range programs {
		require.NoError(t, os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755))
	}
	return bin
}

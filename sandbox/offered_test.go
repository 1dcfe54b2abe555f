package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
				p, err := Detect(ws)
				require.NoError(t, err)
				sb.Locate(t.Context(), &p)
				var got []string
				for _, a := range AllowedIn(TierTest, &p) {
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
				var na *NotApplicable
				require.ErrorAs(t, err, &na)
				assert.Equal(t, tt.python, na.Reason)
			})
		}
	}
}

func TestOptionalAbsent(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "no python on PATH (this toolchain has python3): run python3 -m unittest discover",
		optionalAbsent([]string{"python", "-m", "unittest", "discover"}, "python3", ""))
	assert.Equal(t, "no python in the toolchain image python:3.13-slim (this toolchain has python3): run python3 -m pytest",
		optionalAbsent([]string{"python", "-m", "pytest"}, "python3", "python:3.13-slim"))
	assert.Equal(t, []string{"python"}, lacking(pythonEcosystem(), map[string]bool{"python3": true}))
	assert.Empty(t, lacking(pythonEcosystem(), map[string]bool{"python": true}))
	assert.True(t, offered(Allowance{Command: "python -m pytest|unittest"}, nil), "nothing located: every command")
	assert.False(t, offered(Allowance{Command: "python -m pytest|unittest"}, &Project{absent: []string{"python"}}))
	assert.True(t, offered(Allowance{Command: "python3 -m pytest|unittest"}, &Project{absent: []string{"python"}}))
}

// TestAppliesWithoutManifest: with neither manifest nor tests, pytest does
// not apply, and the reason names what would have made it.
func TestAppliesWithoutManifest(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"calc.py": ""})
	sb := New(Config{Home: t.TempDir(), Path: t.TempDir()})
	var na *NotApplicable
	require.ErrorAs(t, sb.Applies(t.Context(), ws, []string{"pytest"}), &na)
	assert.Equal(t, "no pyproject.toml or setup.py or setup.cfg or requirements*.txt or tox.ini or pytest.ini or "+pythonEcosystem().Inferred+": pytest does not apply here", na.Reason)
}

// TestChecksFromCIWithoutPython: a workflow's python -m pytest (its
// setup-python has a python) is taken as python3 -m pytest where the
// toolchain has only python3, and said so; as written where there is a
// python.
func TestChecksFromCIWithoutPython(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"pyproject.toml": "", ".github/workflows/ci.yml": ciWorkflow})
	for _, tt := range []struct {
		name   string
		absent []string
		argv   []string
		as     string
	}{
		{name: "no python", absent: []string{"python"}, argv: []string{"python3", "-m", "pytest", "-q"}, as: "python3 -m pytest -q"},
		{name: "a python", argv: []string{"python", "-m", "pytest", "-q"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Detect(ws)
			require.NoError(t, err)
			p.absent = tt.absent
			got, err := ChecksFromCI(ws, TierTest, &p)
			require.NoError(t, err)
			require.Len(t, got.Taken, 1)
			assert.Equal(t, "python -m pytest -q", got.Taken[0].Command, "the workflow's line as written")
			assert.Equal(t, tt.argv, got.Taken[0].Argv)
			assert.Equal(t, tt.as, got.Taken[0].As)
		})
	}
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

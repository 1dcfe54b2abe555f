package lang

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func TestOptionalAbsent(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "no python on PATH (this toolchain has python3): run python3 -m unittest discover",
		OptionalAbsent([]string{"python", "-m", "unittest", "discover"}, "python3", ""))
	assert.Equal(t, "no python in the toolchain image python:3.13-slim (this toolchain has python3): run python3 -m pytest",
		OptionalAbsent([]string{"python", "-m", "pytest"}, "python3", "python:3.13-slim"))
	assert.Equal(t, []string{"python"}, Lacking(pythonEcosystem(), map[string]bool{"python3": true}))
	assert.Empty(t, Lacking(pythonEcosystem(), map[string]bool{"python": true}))
	assert.True(t, offered(Allowance{Command: "python -m pytest|unittest"}, nil), "nothing located: every command")
	assert.False(t, offered(Allowance{Command: "python -m pytest|unittest"}, &Project{absent: []string{"python"}}))
	assert.True(t, offered(Allowance{Command: "python3 -m pytest|unittest"}, &Project{absent: []string{"python"}}))
}

// TestChecksFromCIWithoutPython: a workflow's python -m pytest (its
// setup-python has a python) is taken as python3 -m pytest where the
// toolchain has only python3, and said so; as written where there is a
// python.
func TestChecksFromCIWithoutPython(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{"pyproject.toml": "", ".github/workflows/ci.yml": ciWorkflow})
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
			p, err := Detect(ws, nil)
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

// TestAllowedInLeavesOutWhatIsAbsent: a command that starts with a
// program the toolchain lacks (as the sandbox found, SetAbsent) is not
// offered; the others of its ecosystem are.
func TestAllowedInLeavesOutWhatIsAbsent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		absent []string
		want   []string
	}{
		{name: "nothing absent", want: []string{"pytest", "python -m pytest|unittest", "python3 -m pytest|unittest"}},
		{name: "no python", absent: []string{"python"}, want: []string{"pytest", "python3 -m pytest|unittest"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &Project{Ecosystems: []string{"python"}, known: true}
			p.SetAbsent(tt.absent)
			var got []string
			for _, a := range AllowedIn(TierTest, p) {
				got = append(got, a.Command)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

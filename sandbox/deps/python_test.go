package deps

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanPythonRunners: a runner the toolchain lacks joins what the step
// fetches, beside the repository's own requirements or alone.
func TestPlanPythonRunners(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		runners []string
		sources []string // the step's -r files
	}{
		{name: "requirements.txt", files: map[string]string{"requirements.txt": "greet\n"}, runners: []string{"pytest"},
			sources: []string{requirementsFile, runnersRequirementsFile}},
		{name: "pyproject.toml", files: map[string]string{"pyproject.toml": "[project]\nname = \"app\"\ndependencies = [\"greet\"]\n"}, runners: []string{"pytest"},
			sources: []string{pyprojectRequirementsFile, runnersRequirementsFile}},
		{name: "nothing else", files: map[string]string{"pyproject.toml": "[project]\nname = \"app\"\n"}, runners: []string{"pytest"},
			sources: []string{runnersRequirementsFile}},
		{name: "no runner", files: map[string]string{"pyproject.toml": "[project]\nname = \"app\"\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan, _, ok, err := planPythonDeps(func(names ...string) (map[string][]byte, error) {
				files := map[string][]byte{}
				for _, n := range names {
					if b, ok := tt.files[n]; ok {
						files[n] = []byte(b)
					}
				}
				return files, nil
			}, tt.runners, nil, nil)
			require.NoError(t, err)
			require.Equal(t, tt.sources != nil, ok)
			if !ok {
				return
			}
			var sources []string
			for i, a := range plan.Argv {
				if a == "-r" {
					sources = append(sources, plan.Argv[i+1])
				}
			}
			assert.Equal(t, tt.sources, sources)
			assert.Contains(t, plan.Argv, "--only-binary")
			assert.Contains(t, plan.Argv, "--isolated", "no configuration file or variable changes pip's options")
			for name := range plan.Files {
				assert.True(t, strings.HasPrefix(name, "core-"), "only core's own files reach pip, got %s", name)
			}
			if len(tt.runners) > 0 {
				assert.Equal(t, "pytest\n", string(plan.Files[runnersRequirementsFile]))
				assert.Contains(t, plan.Failed(""), "pytest (which the toolchain lacks)")
			}
		})
	}
}

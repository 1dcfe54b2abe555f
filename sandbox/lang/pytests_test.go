package lang

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func TestIsPythonTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rel  string
		want bool
	}{
		{rel: "test_calc.py", want: true},
		{rel: "calc_test.py", want: true},
		{rel: "pkg/test_calc.py", want: true},
		{rel: "tests/helpers.py", want: true},
		{rel: "pkg/test/conftest.py", want: true},
		{rel: "calc.py"},
		{rel: "test.py"},
		{rel: "test_.py"},
		{rel: "_test.py"},
		{rel: "test_calc.pyc"},
		{rel: "test_calc.txt"},
		{rel: "tests/data.json"},
		{rel: "testsuite/calc.py"},
		{rel: "contest_calc.py"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, isPythonTest(tt.rel))
		})
	}
}

// TestDetectPythonWithoutManifest: a repository of plain modules and
// their tests is Python, said to be inferred; a manifest of any ecosystem
// leaves the walk out; links, hidden folders, other people's code and
// what lies too deep are not looked at.
func TestDetectPythonWithoutManifest(t *testing.T) {
	t.Parallel()
	deep := "a/b/c/d/test_x.py"
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string // link name -> a directory outside holding test_x.py, or "file"
		want  []string
	}{
		{name: "modules and a test_ file", files: map[string]string{"calc.py": "", "test_calc.py": ""}, want: []string{"python"}},
		{name: "a _test file", files: map[string]string{"calc.py": "", "calc_test.py": ""}, want: []string{"python"}},
		{name: "a tests folder", files: map[string]string{"calc/__init__.py": "", "tests/check_calc.py": ""}, want: []string{"python"}},
		{name: "a package's tests", files: map[string]string{"src/calc/tests/test_add.py": ""}, want: []string{"python"}},
		{name: "python without tests", files: map[string]string{"calc.py": "", "scripts/run.py": ""}},
		{name: "too deep", files: map[string]string{deep: ""}},
		{name: "hidden", files: map[string]string{".venv/test_x.py": "", ".git/test_x.py": ""}},
		{name: "other people's code", files: map[string]string{"node_modules/x/test_x.py": "", "vendor/test_x.py": ""}},
		{name: "another ecosystem's manifest", files: map[string]string{"go.mod": "module x\n", "tools/test_gen.py": ""}, want: []string{"go"}},
		{name: "a link to a folder of tests", links: map[string]string{"tests": "dir"}},
		{name: "a link named like a test", links: map[string]string{"test_x.py": "file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			testkit.WriteFiles(t, ws, tt.files)
			for name, kind := range tt.links {
				outside := t.TempDir()
				testkit.WriteFiles(t, outside, map[string]string{"test_x.py": ""})
				target := outside
				if kind == "file" {
					target = filepath.Join(outside, "test_x.py")
				}
				require.NoError(t, os.Symlink(target, filepath.Join(ws, name)))
			}
			p, err := Detect(ws, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Ecosystems)
			if len(tt.want) == 1 && tt.want[0] == "python" {
				assert.Equal(t, []string{"python"}, p.Inferred)
			} else {
				assert.Empty(t, p.Inferred)
			}
		})
	}
}

// TestPythonTestsWalkIsBounded: past maxTestWalkEntries entries the walk
// stops looking, so a workspace of a million files costs a bounded read.
func TestPythonTestsWalkIsBounded(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	files := map[string]string{"zz/test_x.py": ""}
	for i := range maxTestWalkEntries {
		files["module_"+strconv.Itoa(i)+".txt"] = ""
	}
	testkit.WriteFiles(t, ws, files)
	assert.False(t, pythonTestsIn(ws), "the top's entries use up the walk before it opens zz")
	require.NoError(t, os.Remove(filepath.Join(ws, "module_0.txt")))
	require.NoError(t, os.Remove(filepath.Join(ws, "module_1.txt")))
	assert.True(t, pythonTestsIn(ws), "with the top within the bound, zz/test_x.py is found")
}

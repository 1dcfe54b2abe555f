package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPyprojectRequirements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		toml    string
		want    []string
		skipped int
		err     string
	}{
		{name: "PEP 621 dependencies and the test extra", toml: `
[build-system]
requires = ["setuptools>=61"]  # not the project's

[project]
name = "app"
version = "1.0"   # a comment
dependencies = [
    "greet==1.0.0",
    'attrs >=22; python_version >= "3.8"',  # literal string
]
[project.optional-dependencies]
test = ["pytest>=7", "app[extra]"]
docs = ["sphinx"]
`, want: []string{"greet==1.0.0", `attrs>=22 ; python_version >= "3.8"`, "pytest>=7"}},
		{name: "dotted keys and an inline table", toml: `[project]
name = 'App.Pkg'
optional-dependencies = { tests = ["hypothesis"], lint = ["ruff"] }
authors = [{ name = "A", email = "a@example.com" }]
`, want: []string{"hypothesis"}},
		{name: "dependency groups", toml: `[dependency-groups]
dev = ["pytest", {include-group = "lint"}]
lint = ["ruff"]
`, want: []string{"pytest"}},
		{name: "URLs, paths and options are left out", toml: `[project]
dependencies = ["pkg @ https://example.com/pkg.whl", "-e .", "--index-url=http://x", "./local", "ok~=1.0", "x; os_name == '#'", "${HOME}", "y --config-settings=a=b"]
`, want: []string{"ok~=1.0"}, skipped: 7},
		{name: "multi-line strings, escapes, dates and arrays of tables", toml: `[tool.x]
doc = """
a "quoted" \
   line"""
lit = '''
raw \n'''
when = 1979-05-27 07:32:00Z
esc = "\u00e9\t"
[[tool.y]]
dependencies = ["not-this"]
[project]
dependencies = ["greet"]
`, want: []string{"greet"}},
		{name: "no project", toml: "[tool.black]\nline-length = 88\n"},
		{name: "an unterminated string", toml: "[project]\nname = \"app\n", err: "line 2: a string runs past its line"},
		{name: "an unterminated array", toml: "[project]\ndependencies = [\"a\",\n", err: "a value ends the file"},
		{name: "a header without its bracket", toml: "[project\nname = 'x'\n", err: "line 1: a table header does not end with ]"},
		{name: "garbage after a value", toml: "[project]\nname = 'x' 'y'\n", err: "more after a value on its line"},
		{name: "too deep", toml: "x = " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n", err: "nested deeper than 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, dropped, err := PyprojectRequirements([]byte(tt.toml))
			if tt.err != "" {
				require.ErrorIs(t, err, errTOML)
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Len(t, dropped, tt.skipped)
		})
	}
}

// FuzzPyprojectRequirements: whatever the file, the reader ends, and what
// it keeps is one requirement by name per line: never an option, a URL, a
// path or more than one line, which pip would read as more than a name.
func FuzzPyprojectRequirements(f *testing.F) {
	for _, s := range []string{
		"[project]\ndependencies = [\"a==1\", 'b; python_version < \"3\"']\n",
		"[project.optional-dependencies]\ntest = [\"pytest>=7\"]\n",
		"[dependency-groups]\ndev = [\"x\", {include-group = \"y\"}]\n",
		"a = \"\"\"\nx\\\n  y\"\"\"\nb = '''z'''\n[[t]]\nc = {d = [1, 2.5, true]}\n",
		"[project]\ndependencies = [\"a\\nb\", \"-r x\", \"c @ file:///x\"]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		reqs, _, err := PyprojectRequirements(b)
		if err != nil {
			return
		}
		for _, r := range reqs {
			checkPipForm(t, r)
		}
		assert.LessOrEqual(t, len(reqs), maxPythonRequires)
	})
}

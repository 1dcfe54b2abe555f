package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPipReportPins: pip's report becomes sorted name==version pins,
// normalized, once each; a name or version of another form, or two
// versions of one package, refuse it.
func TestPipReportPins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, report, want, err string
	}{
		{name: "two packages", report: `{"version":"1","install":[{"metadata":{"name":"Greet_Me","version":"1.0.0"}},{"metadata":{"name":"attrs","version":"23.1.0"}}]}`,
			want: "attrs==23.1.0\ngreet-me==1.0.0\n"},
		{name: "nothing to install", report: `{"install":[]}`, want: ""},
		{name: "the same twice", report: `{"install":[{"metadata":{"name":"a","version":"1"}},{"metadata":{"name":"A","version":"1"}}]}`, want: "a==1\n"},
		{name: "two versions", report: `{"install":[{"metadata":{"name":"a","version":"1"}},{"metadata":{"name":"a","version":"2"}}]}`, err: "two versions"},
		{name: "a name with a line", report: `{"install":[{"metadata":{"name":"a\n--index-url http://evil","version":"1"}}]}`, err: "no package name"},
		{name: "a version with a URL", report: `{"install":[{"metadata":{"name":"a","version":"1 @ http://evil/a.whl"}}]}`, err: "no version"},
		{name: "an option as a name", report: `{"install":[{"metadata":{"name":"-e","version":"1"}}]}`, err: "no package name"},
		{name: "not JSON", report: `pip`, err: "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := pipReportPins([]byte(tt.report))
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// FuzzPipReportPins: whatever pip's report says, the pins are lines of
// name==version and nothing else pip would read as an option or a URL.
func FuzzPipReportPins(f *testing.F) {
	f.Add([]byte(`{"install":[{"metadata":{"name":"greet","version":"1.0.0"}}]}`))
	f.Add([]byte(`{"install":[{"metadata":{"name":"a.b-c_d","version":"1!2.0+local"}},{"metadata":{"name":"x","version":"0"}}]}`))
	f.Fuzz(func(t *testing.T, report []byte) {
		pins, err := pipReportPins(report)
		if err != nil {
			return
		}
		if len(pins) == 0 {
			return
		}
		if !strings.HasSuffix(string(pins), "\n") {
			t.Fatalf("pins %q do not end with a newline", pins)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(pins), "\n"), "\n") {
			name, version, ok := strings.Cut(line, "==")
			if !ok || !pipPinName.MatchString(name) || !pipPinVersion.MatchString(version) {
				t.Fatalf("pin %q is not name==version", line)
			}
		}
	})
}

// TestPythonPinned: only exact versions are pinned; a range, a wildcard
// or a bare name is resolved by the run.
func TestPythonPinned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reqs []string
		want bool
	}{
		{reqs: []string{"greet==1.0.0", "attrs[tests]==23.1 ; python_version >= '3.8'"}, want: true},
		{reqs: []string{"a===1"}, want: true},
		{reqs: nil, want: true},
		{reqs: []string{"greet==1.0.0", "attrs"}},
		{reqs: []string{"greet>=1.0"}},
		{reqs: []string{"greet==1.*"}},
		{reqs: []string{"greet==1.0,!=1.0.1"}},
		{reqs: []string{"greet~=1.0"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, pythonPinned(tt.reqs), "%q", tt.reqs)
	}
}

// TestLockPackages: how many packages each lockfile fetches, for the
// progress lines.
func TestLockPackages(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 2, lockPackages("node", []byte(`{"lockfileVersion":3,"packages":{"":{},"node_modules/a":{},"node_modules/a/node_modules/b":{},"lib":{}}}`)))
	assert.Equal(t, 1, lockPackages("node", []byte(`{"lockfileVersion":1,"dependencies":{"a":{}}}`)))
	assert.Equal(t, 0, lockPackages("node", []byte(`not json`)))
	assert.Equal(t, 1, lockPackages("rust", []byte("[[package]]\nname = \"app\"\n\n[[package]]\nname = \"greet\"\nsource = \"registry+x\"\n")))
	assert.Equal(t, 2, lockPackages("python", []byte("# pins\na==1\n\nb==2\n-c other.txt\n")))
	assert.Equal(t, "1 Node.js package", packagesWord("node", 1))
}

// TestSeeded: a changed manifest resolves from what the run resolved:
// the lockfile beside it (npm), cargo update --workspace on it (cargo),
// pins as constraints (pip); the plan it came from is unchanged.
func TestSeeded(t *testing.T) {
	t.Parallel()
	lock := []byte("lock")
	tests := []struct {
		eco, file string
		argv      []string
		want      []string
	}{
		{eco: "node", file: "package-lock.json", argv: []string{"npm", "install", "--package-lock-only"}, want: []string{"npm", "install", "--package-lock-only"}},
		{eco: "rust", file: "Cargo.lock", argv: []string{"cargo", "generate-lockfile"}, want: []string{"cargo", "update", "--workspace"}},
		{eco: "python", file: constraintsFile, argv: []string{"python3", "-m", "pip", "install", "-r", requirementsFile},
			want: []string{"python3", "-m", "pip", "install", "-r", requirementsFile, "-c", constraintsFile}},
	}
	for _, tt := range tests {
		plan := depsPlan{eco: tt.eco, argv: tt.argv, files: map[string][]byte{"manifest": []byte("m")}}
		got := seeded(plan, lock)
		assert.Equal(t, tt.want, got.argv, tt.eco)
		assert.Equal(t, lock, got.files[tt.file], tt.eco)
		assert.Len(t, plan.files, 1, "%s: the unseeded plan keeps its files", tt.eco)
		assert.Equal(t, tt.argv, plan.argv, tt.eco)
	}
}

// TestGoSumModules: the modules whose zips go.sum names, once each,
// across the go.sum files of a go.work.
func TestGoSumModules(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"go.mod":     []byte("module m\n"),
		"go.sum":     []byte("example.com/a v1.0.0 h1:x=\nexample.com/a v1.0.0/go.mod h1:y=\nexample.com/b v1.2.0/go.mod h1:z=\n"),
		"sub/go.sum": []byte("example.com/a v1.0.0 h1:x=\nexample.com/c v0.1.0 h1:w=\n\n"),
	}
	assert.Equal(t, 2, goSumModules(files), "a and c: b's go.mod alone is no download")
	assert.Equal(t, 0, goSumModules(map[string][]byte{"go.mod": []byte("module m\n")}))
}

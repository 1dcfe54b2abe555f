package manifest

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
			got, err := PipReportPins([]byte(tt.report))
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
		pins, err := PipReportPins(report)
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
		assert.Equal(t, tt.want, PythonPinned(tt.reqs), "%q", tt.reqs)
	}
}

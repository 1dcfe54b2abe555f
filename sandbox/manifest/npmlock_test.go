package manifest

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testNpmRegistry = "http://127.0.0.1:4873/npm/"

// testIntegrity is an integrity in npm's form.
var testIntegrity = "sha512-" + strings.Repeat("A", 86) + "=="

func TestNpmTarball(t *testing.T) {
	t.Parallel()
	reg, err := url.Parse(testNpmRegistry)
	require.NoError(t, err)
	tests := []struct{ name, resolved, why string }{
		{name: "the registry's", resolved: "http://127.0.0.1:4873/npm/greet/-/greet-1.0.0.tgz"},
		{name: "a scoped one", resolved: "http://127.0.0.1:4873/npm/@s/greet/-/greet-1.0.0.tgz"},
		{name: "npm's public registry", resolved: "https://registry.npmjs.org/greet/-/greet-1.0.0.tgz"},
		{name: "another port", resolved: "http://127.0.0.1:4874/npm/greet/-/greet-1.0.0.tgz", why: "not on the configured registry"},
		{name: "another host", resolved: "https://evil.example/npm/greet/-/greet-1.0.0.tgz", why: "not on the configured registry"},
		{name: "another path", resolved: "http://127.0.0.1:4873/other/greet/-/greet-1.0.0.tgz", why: "not on the configured registry"},
		{name: "a path that only starts alike", resolved: "http://127.0.0.1:4873/npmx/greet/-/greet-1.0.0.tgz", why: "not on the configured registry"},
		{name: "npm's registry over http", resolved: "http://registry.npmjs.org/greet/-/greet-1.0.0.tgz", why: "not on the configured registry"},
		{name: "https for an http registry", resolved: "https://127.0.0.1:4873/npm/greet/-/greet-1.0.0.tgz", why: "not on the configured registry"},
		{name: "credentials", resolved: "http://u:p@127.0.0.1:4873/npm/greet/-/greet-1.0.0.tgz", why: "not on the configured registry"},
		{name: "a query", resolved: "http://127.0.0.1:4873/npm/greet/-/greet-1.0.0.tgz?x=1", why: "not on the configured registry"},
		{name: "not a tarball", resolved: "http://127.0.0.1:4873/npm/greet", why: "not a registry tarball"},
		{name: "git", resolved: "git+ssh://git@github.com/a/b.git#abc", why: "a git+ssh source"},
		{name: "a file", resolved: "file:../greet", why: "a file source"},
		{name: "not a URL", resolved: "greet-1.0.0.tgz", why: "not a URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			why := npmTarball(tt.resolved, reg)
			if tt.why == "" {
				assert.Empty(t, why)
			} else {
				assert.Contains(t, why, tt.why)
			}
		})
	}
}

func TestNpmLockProblems(t *testing.T) {
	t.Parallel()
	ok := map[string]any{"version": "1.0.0", "resolved": "http://127.0.0.1:4873/npm/greet/-/greet-1.0.0.tgz", "integrity": testIntegrity}
	lockV3 := func(packages map[string]any) string {
		packages[""] = map[string]any{"name": "app", "dependencies": map[string]string{"greet": "1.0.0"}}
		b, _ := json.Marshal(map[string]any{"lockfileVersion": 3, "packages": packages})
		return string(b)
	}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name, pkg, lock string
		problems        []string // each a prefix of one problem
		err             string
	}{
		{name: "v3 from the registry", lock: lockV3(map[string]any{"node_modules/greet": ok, "node_modules/a/node_modules/b": ok})},
		{name: "v3 resolved elsewhere", lock: lockV3(map[string]any{"node_modules/greet": with("resolved", "http://127.0.0.1:1/npm/greet/-/greet-1.0.0.tgz")}),
			problems: []string{`node_modules/greet (resolved "http://127.0.0.1:1/npm/greet/-/greet-1.0.0.tgz" is not on the configured registry`}},
		{name: "v3 without integrity", lock: lockV3(map[string]any{"node_modules/greet": with("integrity", nil)}), problems: []string{"node_modules/greet (no integrity)"}},
		{name: "v3 git", lock: lockV3(map[string]any{"node_modules/g": map[string]any{"version": "1.0.0", "resolved": "git+https://github.com/a/g.git#0123"}}), problems: []string{"node_modules/g (resolved"}},
		{name: "v3 link", lock: lockV3(map[string]any{"node_modules/l": map[string]any{"resolved": "packages/l", "link": true}, "packages/l": map[string]any{"version": "1.0.0"}}),
			problems: []string{"node_modules/l (a link", "packages/l (a package from a directory"}},
		{name: "v3 bundled", lock: lockV3(map[string]any{"node_modules/greet": ok, "node_modules/greet/node_modules/x": map[string]any{"version": "1.0.0", "inBundle": true}})},
		{name: "v3 by version only", lock: lockV3(map[string]any{"node_modules/greet": map[string]any{"version": "1.0.0"}})},
		{name: "v3 a file version", lock: lockV3(map[string]any{"node_modules/greet": map[string]any{"version": "file:../greet"}}), problems: []string{`node_modules/greet (version "file:../greet"`}},
		{name: "v1 tree", lock: `{"lockfileVersion":1,"dependencies":{"greet":{"version":"1.0.0","resolved":"http://127.0.0.1:4873/npm/greet/-/greet-1.0.0.tgz","integrity":"` + testIntegrity +
			`","dependencies":{"evil":{"version":"git+https://x/e.git#1"}}}}}`, problems: []string{`greet > evil (version "git+https://x/e.git#1"`}},
		{name: "package.json's git dependency", pkg: `{"dependencies":{"g":"github:a/g","h":"^1.2.3 || 2.x","i":"npm:greet@^1"},"devDependencies":{"f":"file:../f"}}`, lock: lockV3(map[string]any{}),
			problems: []string{`g "github:a/g" in package.json`, `f "file:../f" in package.json`}},
		{name: "not JSON", lock: "{", err: "the lockfile is not JSON"},
		{name: "package.json not JSON", pkg: "[", lock: "{}", err: "package.json is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pkg := tt.pkg
			if pkg == "" {
				pkg = `{"name":"app"}`
			}
			got, err := NpmLockProblems([]byte(pkg), []byte(tt.lock), testNpmRegistry)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, len(tt.problems), "%q", got)
			for i := range got {
				assert.True(t, strings.HasPrefix(got[i], tt.problems[i]), "%q does not start with %q", got[i], tt.problems[i])
			}
		})
	}
}

func TestNpmProblemsNote(t *testing.T) {
	t.Parallel()
	note := NpmProblemsNote("package-lock.json", []string{"a", "b", "c", "d", "e", "f", "g"})
	assert.True(t, strings.HasPrefix(note, "core fetched no dependencies: package-lock.json names 7 packages not a tarball of the configured registry"), note)
	assert.Contains(t, note, ": a; b; c; d; e; and 2 more\n")
}

// FuzzNpmLockProblems: whatever the files, the reader ends, and a
// lockfile it passes names only the registry's tarballs: every resolved
// URL in it, at any depth, is one.
func FuzzNpmLockProblems(f *testing.F) {
	f.Add([]byte(`{"dependencies":{"greet":"1.0.0"}}`), []byte(`{"lockfileVersion":3,"packages":{"":{},"node_modules/greet":{"version":"1.0.0","resolved":"http://127.0.0.1:4873/npm/greet/-/greet-1.0.0.tgz","integrity":"sha512-AA=="}}}`))
	f.Add([]byte(`{}`), []byte(`{"lockfileVersion":1,"dependencies":{"a":{"version":"1.0.0","dependencies":{"b":{"version":"git+https://x/b.git"}}}}}`))
	f.Add([]byte(`{}`), []byte(`{"packages":{"node_modules/l":{"link":true,"resolved":"../l"},"node_modules/x":{"resolved":"http://127.0.0.1:1/x/-/x.tgz","integrity":"sha1-A="}}}`))
	f.Add([]byte(`{"devDependencies":{"x":"npm:y@1"}}`), []byte(`{"packages":{"node_modules/b":{"inBundle":true,"resolved":"http://evil/"}}}`))
	reg, _ := url.Parse(testNpmRegistry)
	f.Fuzz(func(t *testing.T, pkg, lock []byte) {
		problems, err := NpmLockProblems(pkg, lock, testNpmRegistry)
		if err != nil || len(problems) > 0 {
			return
		}
		var l struct {
			Packages     map[string]npmLockEntry `json:"packages"`
			Dependencies map[string]npmLockTree  `json:"dependencies"`
		}
		require.NoError(t, json.Unmarshal(lock, &l))
		for key, e := range l.Packages {
			if key != "" && !e.InBundle && !e.Bundled && e.Resolved != "" && npmTarball(e.Resolved, reg) != "" {
				t.Fatalf("passed %s resolved at %q", key, e.Resolved)
			}
		}
		var walk func(map[string]npmLockTree)
		walk = func(deps map[string]npmLockTree) {
			for name, e := range deps {
				if !e.Bundled && (e.Resolved != "" && npmTarball(e.Resolved, reg) != "" || e.Resolved == "" && !npmVersionRE.MatchString(e.Version)) {
					t.Fatalf("passed %s at %q %q", name, e.Resolved, e.Version)
				}
				walk(e.Dependencies)
			}
		}
		walk(l.Dependencies)
	})
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox/deps"
)

// The attacks on the dependency step (issue #34): a repository whose
// requirements, lockfile or Cargo.lock would make the step, which has the
// network, build and run code or fetch from another host. Each runs the
// real step (bwrap, pip, npm, cargo) against loopback registries, and
// asserts on what a place nothing may reach recorded.

// fetchFor runs the dependency step of argv for the workspace ws.
func fetchFor(t *testing.T, sb *Sandbox, ws string, argv ...string) deps.View {
	t.Helper()
	p := sb.Probe(t.Context())
	require.True(t, p.Usable)
	v, err := sb.fetchDeps(t.Context(), p.chosen(), p.Bwrap, argv, RunOptions{Workspace: ws})
	require.NoError(t, err)
	return v
}

// TestDepsPipBuildsNothing: a requirements.txt that turns wheels-only off
// (--no-binary :all:), or names a direct URL (or a bare URL) to an sdist
// whose build phones home: pip never builds it, so nothing reaches the
// tripwire, and the step's note says what core left out and why.
func TestDepsPipBuildsNothing(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	tests := []struct {
		name         string
		requirements func(sdist string) string
		note         string
	}{
		{name: "--no-binary :all:", requirements: func(string) string { return "--no-binary :all:\nphony==1.0\n" },
			note: `requirements.txt:1 "--no-binary :all:" (a pip option`},
		{name: "--no-binary in an include", requirements: func(string) string { return "-r more.txt\n" },
			note: `more.txt:1 "--no-binary=phony" (a pip option`},
		{name: "a direct URL", requirements: func(sdist string) string { return "phony @ " + sdist + "\n" },
			note: `requirements.txt:1 "phony @ http://127.0.0.1:`},
		{name: "a bare URL", requirements: func(sdist string) string { return sdist + "\n" },
			note: "(a URL: core fetches wheels by name from the configured index only)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.NewRegistry(t)
			wire := registry.NewTripwire(t)
			sdist := reg.AddSdist("phony", "1.0", registry.PhoneHome(wire.Addr, "phony's build ran"))
			reg.AddWheel("greet", "1.0.0", map[string]string{"greet/__init__.py": ""})
			sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
				HostEnv: []string{"PIP_INDEX_URL=" + reg.SimpleURL()}})
			requireTool(t, sb, "python3")
			ws := newWorkspace(t)
			writeFiles(t, ws, map[string]string{
				"requirements.txt": tt.requirements(sdist) + "greet==1.0.0\n",
				"more.txt":         "--no-binary=phony\nphony==1.0\n",
			})
			v := fetchFor(t, sb, ws, "python3", "-m", "pytest")
			assert.Empty(t, wire.Hits(), "the sdist's build ran while the network was on")
			assert.Contains(t, v.Note, tt.note)
			assert.True(t, strings.HasPrefix(v.Note, "core "), "the note heads what the command sees:\n%s", v.Note)
		})
	}
}

// TestDepsNpmOtherHost: a package-lock.json whose resolved URL is another
// loopback server's: that server gets no request, and the step does not
// run, with a note that names the package and why.
func TestDepsNpmOtherHost(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	reg := registry.NewRegistry(t)
	other := registry.NewRegistry(t)
	tarball, integrity := other.AddNpm("greet", "1.0.0", map[string]string{"index.js": "exports.hello = () => 'hi';\n"})
	home := t.TempDir()
	sb := New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
		HostEnv: []string{"npm_config_registry=" + reg.NpmURL()}})
	requireTool(t, sb, "npm")
	ws := newWorkspace(t)
	writeFiles(t, ws, map[string]string{
		"package.json": `{"name":"app","version":"1.0.0","dependencies":{"greet":"1.0.0"}}`,
		"package-lock.json": `{"name":"app","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{` +
			`"":{"name":"app","version":"1.0.0","dependencies":{"greet":"1.0.0"}},` +
			`"node_modules/greet":{"version":"1.0.0","resolved":"` + tarball + `","integrity":"` + integrity + `"}}}`,
	})
	v := fetchFor(t, sb, ws, "npm", "test")
	assert.Empty(t, other.Requests(), "the step fetched from a host that is not the configured registry")
	assert.Empty(t, reg.Requests())
	assert.Contains(t, v.Note, `core fetched no dependencies: package-lock.json names 1 package not a tarball of the configured registry`)
	assert.Contains(t, v.Note, `node_modules/greet (resolved "`+tarball+`" is not on the configured registry `+reg.NpmURL()+`)`)
	assert.Empty(t, v.Binds)
}

// TestDepsCargoGitSource: a git dependency in Cargo.lock (and Cargo.toml)
// on another loopback server: the step does not run, that server gets no
// request, and the note names the source.
func TestDepsCargoGitSource(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	reg := registry.NewRegistry(t)
	other := registry.NewRegistry(t)
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
		HostEnv: []string{"CARGO_REGISTRIES_LOCAL_INDEX=" + reg.CargoGitIndex(), "CARGO_NET_GIT_FETCH_WITH_CLI=true"}})
	requireTool(t, sb, "cargo")
	ws := newWorkspace(t)
	git := other.URL + "/greet.git"
	writeFiles(t, ws, map[string]string{
		"Cargo.toml": "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ngreet = { git = \"" + git + "\" }\n",
		"Cargo.lock": "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\n \"greet\",\n]\n\n" +
			"[[package]]\nname = \"greet\"\nversion = \"1.0.0\"\nsource = \"git+" + git + "#0123456789abcdef0123456789abcdef01234567\"\n",
		"src/lib.rs": "",
	})
	v := fetchFor(t, sb, ws, "cargo", "test")
	assert.Empty(t, other.Requests(), "the step fetched a git source")
	assert.Contains(t, v.Note, "core fetched no dependencies: cargo vendor fetches only from crates.io and the registries core is configured with")
	assert.Contains(t, v.Note, `Cargo.lock line 13: a git source "git+`+git)
}

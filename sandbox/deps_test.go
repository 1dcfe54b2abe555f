package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox/lang"
)

// markerWrite is a Node one-liner that leaves a marker file where it runs.
const markerWrite = `node -e \"require('fs').writeFileSync('%s', 'ran')\"`

// filesNamed lists the files named name under dir.
func filesNamed(t *testing.T, dir, name string) []string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == name {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// TestDependencyStepNode: npm ci --ignore-scripts fetches what the lockfile
// names from the registry on loopback, confined, with the network; neither
// the workspace's postinstall nor the package's install script runs; the
// tests then see node_modules read-only, offline; a second command fetches
// nothing again.
func TestDependencyStepNode(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb, reg, home := newNodeSandbox(t)
	ws := newWorkspace(t)
	writeFiles(t, ws, nodeApp(reg))
	runNodeApp(t, sb, reg, home, ws)

	fetched := len(reg.Requests())
	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"npm", "test"}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Len(t, reg.Requests(), fetched, "the second command fetched nothing")
}

// newNodeSandbox is a bwrap Sandbox with a state directory of its own
// (home) whose npm fetches from reg, an npm registry on loopback.
func newNodeSandbox(t *testing.T) (sb *Sandbox, reg *registry.Registry, home string) {
	t.Helper()
	home = t.TempDir()
	reg = registry.NewRegistry(t)
	sb = New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
		HostEnv: []string{"npm_config_registry=" + reg.NpmURL()}})
	t.Cleanup(func() { _ = sb.Close() })
	requireTool(t, sb, "npm")
	return sb, reg, home
}

// nodeApp publishes greet, whose install script leaves install-marker, and
// returns a repository that depends on it through its lockfile, whose
// postinstall leaves postinstall-marker, and whose tests (npm test) use
// greet and fail if they reach the registry.
func nodeApp(reg *registry.Registry) map[string]string {
	tarball, integrity := reg.AddNpm("greet", "1.0.0", map[string]string{
		"package.json": `{"name":"greet","version":"1.0.0","main":"index.js","scripts":{"install":"` + fmt.Sprintf(markerWrite, "install-marker") + `"}}`,
		"index.js":     "exports.hello = (who) => 'hello, ' + who;\n",
	})
	return map[string]string{
		"package.json": `{"name":"app","version":"1.0.0","dependencies":{"greet":"1.0.0"},` +
			`"scripts":{"test":"node --test","postinstall":"` + fmt.Sprintf(markerWrite, "postinstall-marker") + `"}}`,
		"package-lock.json": `{"name":"app","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{` +
			`"":{"name":"app","version":"1.0.0","hasInstallScript":true,"dependencies":{"greet":"1.0.0"}},` +
			`"node_modules/greet":{"version":"1.0.0","resolved":"` + tarball + `","integrity":"` + integrity + `","hasInstallScript":true}}}`,
		"app.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst { hello } = require('greet');\n" +
			"test('greets', () => assert.strictEqual(hello('world'), 'hello, world'));\n" +
			"test('no network', async () => { await assert.rejects(fetch('" + reg.URL + "/npm/greet')); });\n",
	}
}

// runNodeApp runs npm test in nodeApp's repository at ws and checks the
// dependency step: the tarball fetched, node_modules kept under home by
// its key, and neither install script run.
func runNodeApp(t *testing.T, sb *Sandbox, reg *registry.Registry, home, ws string) {
	t.Helper()
	progress := newWaitRecorder()
	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"npm", "test"}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute, Progress: progress})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, reg.Requests(), "/npm/greet/-/greet-1.0.0.tgz", "the step fetched the tarball the lockfile names")
	_, waits, open := progress.state()
	if assert.Len(t, waits, 1, "a heartbeat names the dependency step the command waits for") {
		assert.Contains(t, waits[0], "the dependency step: npm ci")
	}
	assert.Zero(t, open, "the wait for the step ended with it")
	deps, err := filepath.Glob(filepath.Join(home, "cache", "deps", "node-*"))
	require.NoError(t, err)
	require.Len(t, deps, 1, "the dependencies are kept by their key")
	assert.FileExists(t, filepath.Join(deps[0], "node_modules", "greet", "index.js"))
	for _, dir := range []string{deps[0], ws} {
		assert.Empty(t, filesNamed(t, dir, "install-marker"), "the package's install script ran")
		assert.Empty(t, filesNamed(t, dir, "postinstall-marker"), "the workspace's postinstall ran")
	}
}

// TestDependencyStepPython: the wheels requirements.txt names are fetched
// from a PEP 503 index on loopback and installed, confined, into a
// directory the tests import read-only; a requirement with no wheel is
// not built: the command says so and runs without the dependencies. A
// second command runs the step again neither way.
func TestDependencyStepPython(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	tests := []struct {
		name         string
		requirements string
		pyproject    string
		exit         int
		output       string
	}{
		{name: "wheels", requirements: "greet==1.0.0\n", exit: 0},
		{name: "a source build", requirements: "greet==1.0.0\nneedsbuild==1.0\n", exit: 2,
			output: "core fetched no Python dependencies: pip install --only-binary :all: of requirements.txt failed, and core builds nothing from source"},
		{name: "pyproject.toml's test extra", pyproject: "[project]\nname = \"app\"\ndependencies = []\n[project.optional-dependencies]\ntest = [\"greet==1.0.0\", \"app[x]\"]\n", exit: 0},
		{name: "pyproject.toml with a URL", pyproject: "[project]\nname = \"app\"\ndependencies = [\"greet==1.0.0\", \"evil @ http://127.0.0.1:9/evil.whl\"]\n", exit: 0,
			output: `core left out 1 entry of pyproject.toml that it does not pass to pip, which gets only names with extras, versions, markers and hashes, wheels only, from the configured index: pyproject.toml "evil @ http://127.0.0.1:9/evil.whl" (a direct URL reference`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.NewRegistry(t)
			reg.AddWheel("greet", "1.0.0", map[string]string{"greet/__init__.py": "def hello(who):\n    return 'hello, ' + who\n"})
			sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
				HostEnv: []string{"PIP_INDEX_URL=" + reg.SimpleURL()}})
			requireTool(t, sb, "pytest")
			ws := newWorkspace(t)
			files := map[string]string{
				"setup.py":    "open('setup-marker', 'w').write('ran')\n",
				"test_app.py": "from greet import hello\n\n\ndef test_hello():\n    assert hello('world') == 'hello, world'\n",
			}
			if tt.pyproject != "" {
				files["pyproject.toml"] = tt.pyproject
			} else {
				files["requirements.txt"] = tt.requirements
			}
			writeFiles(t, ws, files)
			for i := range 2 {
				asked := len(reg.Requests())
				r, err := sb.Verify(t.Context(), lang.TierTest, []string{"python3", "-m", "pytest", "-q"}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
				require.NoError(t, err)
				assert.Equal(t, tt.exit, r.ExitCode, r.Output)
				if tt.output != "" {
					assert.True(t, strings.HasPrefix(r.Output, tt.output), "the note heads the output:\n%s", r.Output)
				}
				assert.Empty(t, filesNamed(t, ws, "setup-marker"))
				asked = len(reg.Requests()) - asked
				if i == 0 {
					assert.NotZero(t, asked, "the first command's step asks the index")
				} else {
					assert.Zero(t, asked, "the second command's step is not run again, whether it passed or failed")
				}
			}
		})
	}
}

// TestDependencyStepRust: cargo vendor fetches the crate Cargo.lock names
// from a registry on loopback, confined, with the network; the
// workspace's build.rs does not run then (it is not even there); the
// tests then build offline against the vendored sources, and build.rs runs
// only there, confined.
func TestDependencyStepRust(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	reg := registry.NewRegistry(t)
	home := t.TempDir()
	// The index as a git repository: Debian bookworm's cargo predates the
	// sparse protocol; the git command fetches it over dumb HTTP.
	sb := New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
		HostEnv: []string{"CARGO_REGISTRIES_LOCAL_INDEX=" + reg.CargoGitIndex(), "CARGO_NET_GIT_FETCH_WITH_CLI=true"}})
	requireTool(t, sb, "cargo")
	ws := newWorkspace(t)
	writeFiles(t, ws, rustApp(reg))
	p := sb.Probe(t.Context())
	require.True(t, p.Usable)
	v, err := sb.fetchDeps(t.Context(), p.chosen(), p.Bwrap, []string{"cargo", "test"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	require.Empty(t, v.Note)
	assert.Contains(t, reg.Requests(), "/cargo/crates/greet/1.0.0/download")
	deps, err := filepath.Glob(filepath.Join(home, "cache", "deps", "rust-*"))
	require.NoError(t, err)
	require.Len(t, deps, 1)
	assert.FileExists(t, filepath.Join(deps[0], "vendor", "greet-1.0.0", "src", "lib.rs"))
	for _, dir := range []string{deps[0], ws} {
		assert.Empty(t, filesNamed(t, dir, "build-marker"), "build.rs ran while the network was on")
	}

	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"cargo", "test"}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.FileExists(t, filepath.Join(ws, "build-marker"), "build.rs is real: it runs in the tests, confined")
}

// rustApp publishes the crate greet and returns a repository that depends
// on it from the registry named local (CARGO_REGISTRIES_LOCAL_INDEX, the
// registry's git index) through its Cargo.lock, whose build.rs leaves
// build-marker, and whose test (cargo test) uses greet.
func rustApp(reg *registry.Registry) map[string]string {
	cksum := reg.AddCrate("greet", "1.0.0", map[string]string{"src/lib.rs": "pub fn hello(who: &str) -> String {\n    format!(\"hello, {}\", who)\n}\n"})
	return map[string]string{
		"Cargo.toml": "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ngreet = { version = \"1.0.0\", registry = \"local\" }\n",
		"Cargo.lock": "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\n \"greet\",\n]\n\n" +
			"[[package]]\nname = \"greet\"\nversion = \"1.0.0\"\nsource = \"registry+" + reg.CargoGitIndex() + "\"\nchecksum = \"" + cksum + "\"\n",
		"build.rs":   "fn main() {\n    std::fs::write(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/build-marker\"), \"ran\").unwrap();\n}\n",
		"src/lib.rs": "#[cfg(test)]\nmod tests {\n    #[test]\n    fn greets() {\n        assert_eq!(greet::hello(\"world\"), \"hello, world\");\n    }\n}\n",
	}
}

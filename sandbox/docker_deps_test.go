package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/lang"
)

// requireToolchainImage returns the toolchain image of an ecosystem
// (python, node, rust) the Docker tests run in: CORE_TEST_PYTHON_IMAGE,
// CORE_TEST_NODE_IMAGE, CORE_TEST_RUST_IMAGE, which make test-docker builds
// from docker/toolchain.Dockerfile; or skips.
func requireToolchainImage(t *testing.T, eco string) string {
	t.Helper()
	name := "CORE_TEST_" + strings.ToUpper(eco) + "_IMAGE"
	img := os.Getenv(name)
	if img == "" {
		if os.Getenv("CORE_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CORE_REQUIRE_DOCKER=1 but %s is not set (make test-docker sets it)", name)
		}
		t.Skipf("%s is not set", name)
	}
	return img
}

// TestDockerDependencyStepPython: under the Docker backend the wheels
// requirements.txt names are fetched from an index on loopback in a
// sibling of the Python image with the network on, where nothing of the
// workspace is (its setup.py is neither there nor run), and so is pytest,
// which the image lacks (it has pip, as the official python images); the
// tests then run in another sibling, with the wheels read-only and no
// network; a second command fetches nothing again; and the pre-flight
// finds python3 in the image and pytest not missing.
func TestDockerDependencyStepPython(t *testing.T) {
	img := requireToolchainImage(t, "python")
	reg := registry.NewRegistry(t)
	reg.AddWheel("greet", "1.0.0", map[string]string{"greet/__init__.py": "def hello(who):\n    return 'hello, ' + who\n"})
	require.NoError(t, reg.AddInstalledPytest(registry.DebianSite))
	home := t.TempDir()
	sb := requireDockerWith(t, Config{Home: home, ToolchainImages: map[string]string{"python": img},
		HostEnv: []string{"PIP_INDEX_URL=" + reg.SimpleURL(), "GITHUB_TOKEN=secret-token"}})
	t.Parallel()
	ws := newWorkspace(t)
	writeFiles(t, ws, map[string]string{
		"requirements.txt": "greet==1.0.0\n",
		"setup.py":         "open('setup-marker', 'w').write('ran')\n",
		"test_app.py": "import socket, urllib.request\nfrom greet import hello\n\n\ndef test_hello():\n    assert hello('world') == 'hello, world'\n\n\n" +
			"def test_offline():\n    try:\n        urllib.request.urlopen('" + reg.SimpleURL() + "greet/', timeout=5)\n    except OSError:\n        return\n    raise AssertionError('the tests reached the index')\n",
	})
	assert.Empty(t, sb.Missing(t.Context(), lang.Project{Ecosystems: []string{"python"}}), "the image has python3, and pip3 which fetches pytest")

	for i, check := range []string{"python3 -m pytest -q", "pytest -q"} {
		asked := len(reg.Requests())
		r, err := sb.Verify(t.Context(), lang.TierTest, strings.Fields(check), RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
		require.NoError(t, err)
		require.Equal(t, 0, r.ExitCode, r.Output)
		assert.Contains(t, r.Output, "2 passed")
		asked = len(reg.Requests()) - asked
		if i == 0 {
			assert.Contains(t, strings.Join(reg.Requests(), "\n"), "greet-1.0.0-py3-none-any.whl", "the step fetched the wheel")
			assert.Contains(t, strings.Join(reg.Requests(), "\n"), "/files/pytest-", "the step fetched pytest")
		} else {
			assert.Zero(t, asked, "the second command fetched nothing")
		}
	}
	assert.Empty(t, filesNamed(t, ws, "setup-marker"), "the workspace's setup.py ran")
	deps, err := filepath.Glob(filepath.Join(home, "cache", "deps", "python-*"))
	require.NoError(t, err)
	require.Len(t, deps, 1, "the dependencies are kept by the hash of the requirements and the image")
	assert.FileExists(t, filepath.Join(deps[0], "site", "greet", "__init__.py"))
	assert.FileExists(t, filepath.Join(deps[0], "site", "bin", "pytest"), "pip wrote pytest's script")
	assert.Empty(t, filesNamed(t, deps[0], "setup.py"), "nothing of the workspace was in the step")
}

// TestDockerDependencyStepSeesNothing: the step's sibling sees its scratch
// directory and nothing else: no workspace, no $CORE_HOME, no Docker
// socket, no token of core's environment; its network is on.
func TestDockerDependencyStepSeesNothing(t *testing.T) {
	img := requireToolchainImage(t, "python")
	home := t.TempDir()
	sb := requireDockerWith(t, Config{Home: home, ToolchainImages: map[string]string{"python": img},
		HostEnv: []string{"PIP_INDEX_URL=http://127.0.0.1:9/simple", "GITHUB_TOKEN=secret-token"}})
	t.Parallel()
	d, ok := sb.Probe(t.Context()).chosen().(*dockerBackend)
	require.True(t, ok)
	ws := newWorkspace(t)
	writeFiles(t, ws, map[string]string{"secret.txt": "workspace"})
	scratch, err := sb.scratch(map[string][]byte{"requirements.txt": []byte("greet\n")})
	require.NoError(t, err)
	defer os.RemoveAll(scratch)
	script := "ls -a " + deps.ScratchDir + "; for p in " + ws + " " + home + " /var/run/docker.sock; do test -e $p && echo SEEN $p; done; env; cat /proc/net/dev; echo x > " + deps.ScratchDir + "/written"
	r, err := d.fetch(t.Context(), deps.Plan{Tool: "python3", Argv: []string{"sh", "-c", script}}, scratch, sb.depsHost().RegistryEnv("python"))
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, r.Output, "requirements.txt")
	assert.NotContains(t, r.Output, "SEEN")
	assert.NotContains(t, r.Output, "secret-token")
	assert.Contains(t, r.Output, "PIP_INDEX_URL=http://127.0.0.1:9/simple", "the registry settings are passed on")
	assert.NotEqual(t, []string{"lo"}, interfaces(r.Output), "the step has the network")
	assert.FileExists(t, filepath.Join(scratch, "written"))
}

// TestDockerToolchainMissing: an ecosystem whose toolchain image lacks its
// programs is a pre-flight line naming them and the image, but for a test
// runner the dependency step fetches.
func TestDockerToolchainMissing(t *testing.T) {

	// Core's own image, which carries Go only, named as Python's.
	sb := requireDockerWith(t, Config{Home: t.TempDir(), ToolchainImages: map[string]string{"python": os.Getenv("CORE_SANDBOX_IMAGE")}})
	t.Parallel()
	got := sb.Missing(t.Context(), lang.Project{Ecosystems: []string{"go", "python"}})
	require.Len(t, got, 1, got)
	assert.Contains(t, got[0], "no python3, pytest in the toolchain image")
	assert.Contains(t, got[0], "toolchain_images")

	// pytest named in pyproject.toml's test extra comes with the
	// dependency step: python3 alone is missing.
	ws := newWorkspace(t)
	writeFiles(t, ws, map[string]string{"pyproject.toml": "[project]\nname = \"app\"\n[project.optional-dependencies]\ntest = [\"pytest>=7\"]\n"})
	p, err := lang.Detect(ws, deps.PythonFetches)
	require.NoError(t, err)
	got = sb.Missing(t.Context(), p)
	require.Len(t, got, 1, got)
	assert.Contains(t, got[0], "no python3 in the toolchain image")

	// A check that needs what the image lacks cannot apply: an error with
	// the pre-flight's reason, never a failure.
	var na *lang.NotApplicable
	require.ErrorAs(t, sb.Applies(t.Context(), ws, []string{"python3", "-m", "pytest"}), &na)
	assert.Equal(t, got[0], na.Reason)
	assert.NoError(t, sb.Applies(t.Context(), ws, []string{"pytest"}), "the step fetches pytest")

	t.Run("no pip", func(t *testing.T) {
		// The Node.js image has Debian's python3 (npm needs it), without
		// pip or pytest: pytest is missing, as the line says, and so a
		// check that runs it cannot apply.
		sb := requireDockerWith(t, Config{Home: t.TempDir(), ToolchainImages: map[string]string{"python": requireToolchainImage(t, "node")}})
		ws := newWorkspace(t)
		writeFiles(t, ws, map[string]string{"pyproject.toml": "[project]\nname = \"app\"\n"})
		p, err := lang.Detect(ws, deps.PythonFetches)
		require.NoError(t, err)
		got := sb.Missing(t.Context(), p)
		require.Len(t, got, 1, got)
		assert.Contains(t, got[0], "no pytest in the toolchain image")
		assert.Contains(t, got[0], "or one with pip3: core then fetches pytest itself, wheels only")
		var na *lang.NotApplicable
		require.ErrorAs(t, sb.Applies(t.Context(), ws, []string{"python3", "-m", "pytest"}), &na)
		assert.Equal(t, got[0], na.Reason)
		assert.NoError(t, sb.Applies(t.Context(), ws, []string{"python3", "-m", "unittest"}), "unittest needs python3 alone")
	})
}

// TestDockerDependencyStepNode: under the Docker backend npm ci
// --ignore-scripts fetches what the lockfile names from the registry on
// loopback in a sibling of the Node image with the network on; neither the
// workspace's postinstall nor the package's install script runs; npm test
// then runs in another sibling, offline, with node_modules read-only; the
// pre-flight finds node and npm in the image.
func TestDockerDependencyStepNode(t *testing.T) {
	img := requireToolchainImage(t, "node")
	reg := registry.NewRegistry(t)
	home := t.TempDir()
	sb := requireDockerWith(t, Config{Home: home, ToolchainImages: map[string]string{"node": img},
		HostEnv: []string{"npm_config_registry=" + reg.NpmURL()}})
	t.Parallel()
	ws := newWorkspace(t)
	writeFiles(t, ws, nodeApp(reg))
	assert.Empty(t, sb.Missing(t.Context(), lang.Project{Ecosystems: []string{"node"}}), "the image has node and npm")
	runNodeApp(t, sb, reg, home, ws)
}

// TestDockerDependencyStepRust: under the Docker backend cargo vendor
// fetches the crate Cargo.lock names from the registry the host names
// (CARGO_REGISTRIES_LOCAL_INDEX, found because Cargo.toml names the
// registry local) in a sibling of the Rust image with the network on,
// where the workspace's build.rs is not; cargo test then builds offline in
// another sibling against the vendored sources, and build.rs runs there
// only.
func TestDockerDependencyStepRust(t *testing.T) {
	img := requireToolchainImage(t, "rust")
	reg := registry.NewRegistry(t)
	home := t.TempDir()
	env := map[string]string{"CARGO_REGISTRIES_LOCAL_INDEX": reg.CargoGitIndex(), "CARGO_NET_GIT_FETCH_WITH_CLI": "true"}
	cfg, err := ConfigFromEnv(home, func(k string) string { return env[k] })
	require.NoError(t, err)
	sb := requireDockerWith(t, Config{Home: home, ToolchainImages: map[string]string{"rust": img}, HostEnv: cfg.HostEnv, CargoIndex: cfg.CargoIndex})
	t.Parallel()
	ws := newWorkspace(t)
	writeFiles(t, ws, rustApp(reg))
	assert.Empty(t, sb.Missing(t.Context(), lang.Project{Ecosystems: []string{"rust"}}), "the image has cargo")

	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"cargo", "test"}, RunOptions{Workspace: ws, Timeout: 10 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, r.Output, "test tests::greets ... ok")
	assert.Contains(t, reg.Requests(), "/cargo/crates/greet/1.0.0/download", "the step fetched the crate Cargo.lock names")
	deps, err := filepath.Glob(filepath.Join(home, "cache", "deps", "rust-*"))
	require.NoError(t, err)
	require.Len(t, deps, 1)
	assert.FileExists(t, filepath.Join(deps[0], "vendor", "greet-1.0.0", "src", "lib.rs"))
	assert.Empty(t, filesNamed(t, deps[0], "build-marker"), "build.rs ran while the network was on")
	assert.FileExists(t, filepath.Join(ws, "build-marker"), "build.rs is real: it runs in the tests, confined")
}

// TestDockerDepsEgress: under the Docker backend with core's executable
// (here the test binary), the step's sibling has no network, and reaches
// the registry through core's proxy and nothing else, as under bwrap
// (TestDepsEgress).
func TestDockerDepsEgress(t *testing.T) {
	img := requireToolchainImage(t, "python")
	reg := registry.NewRegistry(t)
	reg.AddWheel("greet", "1.0.0", map[string]string{"greet/__init__.py": ""})
	wire := registry.NewTripwire(t)
	sb := requireDockerWith(t, Config{Home: t.TempDir(), ToolchainImages: map[string]string{"python": img}, Agent: os.Args[0]})
	t.Parallel()
	d, ok := sb.Probe(t.Context()).chosen().(*dockerBackend)
	require.True(t, ok)
	scratch, err := sb.scratch(map[string][]byte{"core-requirements.txt": []byte("greet\n")})
	require.NoError(t, err)
	defer os.RemoveAll(scratch)
	plan := deps.Plan{Tool: "python3", Argv: []string{"python3", "-c", egressProbe, wire.Addr, strings.TrimPrefix(reg.URL, "http://")}, Hosts: egress.Hosts(reg.URL)}
	r, err := d.fetch(t.Context(), plan, scratch, nil)
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Empty(t, wire.Hits(), "the step reached a port that is no registry's:\n%s", r.Output)
	assert.Contains(t, r.Output, "direct: failed\n")
	assert.Contains(t, r.Output, "connect wire: HTTP/1.1 403 Forbidden\n")
	assert.Contains(t, r.Output, "tunnel: HTTP/1.1 200 OK\n")
}

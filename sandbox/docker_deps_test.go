package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// requirePythonImage returns the Python toolchain image the Docker tests
// run in (CORE_TEST_PYTHON_IMAGE, which make test-docker builds from
// docker/toolchain.Dockerfile), or skips.
func requirePythonImage(t *testing.T) string {
	t.Helper()
	img := os.Getenv("CORE_TEST_PYTHON_IMAGE")
	if img == "" {
		if os.Getenv("CORE_REQUIRE_DOCKER") == "1" {
			t.Fatal("CORE_REQUIRE_DOCKER=1 but CORE_TEST_PYTHON_IMAGE is not set (make test-docker sets it)")
		}
		t.Skip("CORE_TEST_PYTHON_IMAGE is not set")
	}
	return img
}

// TestDockerDependencyStepPython: under the Docker backend the wheels
// requirements.txt names are fetched from an index on loopback in a
// sibling of the Python image with the network on, where nothing of the
// workspace is (its setup.py is neither there nor run); the tests then run
// in another sibling, with the wheels read-only and no network; a second
// command fetches nothing again; and the pre-flight finds python3 and
// pytest in the image.
func TestDockerDependencyStepPython(t *testing.T) {
	img := requirePythonImage(t)
	reg := testkit.NewRegistry(t)
	reg.AddWheel("greet", "1.0.0", map[string]string{"greet/__init__.py": "def hello(who):\n    return 'hello, ' + who\n"})
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
	assert.Empty(t, sb.Missing(t.Context(), Project{Ecosystems: []string{"python"}}), "the image has python3 and pytest")

	for i := range 2 {
		asked := len(reg.Requests())
		r, err := sb.Verify(t.Context(), TierTest, []string{"python3", "-m", "pytest", "-q"}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
		require.NoError(t, err)
		require.Equal(t, 0, r.ExitCode, r.Output)
		assert.Contains(t, r.Output, "2 passed")
		asked = len(reg.Requests()) - asked
		if i == 0 {
			assert.Contains(t, strings.Join(reg.Requests(), "\n"), "greet-1.0.0-py3-none-any.whl", "the step fetched the wheel")
		} else {
			assert.Zero(t, asked, "the second command fetched nothing")
		}
	}
	assert.Empty(t, filesNamed(t, ws, "setup-marker"), "the workspace's setup.py ran")
	deps, err := filepath.Glob(filepath.Join(home, "cache", "deps", "python-*"))
	require.NoError(t, err)
	require.Len(t, deps, 1, "the dependencies are kept by the hash of the requirements and the image")
	assert.FileExists(t, filepath.Join(deps[0], "site", "greet", "__init__.py"))
	assert.Empty(t, filesNamed(t, deps[0], "setup.py"), "nothing of the workspace was in the step")
}

// TestDockerDependencyStepSeesNothing: the step's sibling sees its scratch
// directory and nothing else: no workspace, no $CORE_HOME, no Docker
// socket, no token of core's environment; its network is on.
func TestDockerDependencyStepSeesNothing(t *testing.T) {
	img := requirePythonImage(t)
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
	script := "ls -a " + scratchDir + "; for p in " + ws + " " + home + " /var/run/docker.sock; do test -e $p && echo SEEN $p; done; env; cat /proc/net/dev; echo x > " + scratchDir + "/written"
	r, err := d.fetch(t.Context(), depsPlan{tool: "python3", argv: []string{"sh", "-c", script}}, scratch, sb.depsHostEnv("python"))
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
	got := sb.Missing(t.Context(), Project{Ecosystems: []string{"go", "python"}})
	require.Len(t, got, 1, got)
	assert.Contains(t, got[0], "no python3, pytest in the toolchain image")
	assert.Contains(t, got[0], "toolchain_images")

	// pytest named in pyproject.toml's test extra comes with the
	// dependency step: python3 alone is missing.
	ws := newWorkspace(t)
	writeFiles(t, ws, map[string]string{"pyproject.toml": "[project]\nname = \"app\"\n[project.optional-dependencies]\ntest = [\"pytest>=7\"]\n"})
	p, err := Detect(ws)
	require.NoError(t, err)
	got = sb.Missing(t.Context(), p)
	require.Len(t, got, 1, got)
	assert.Contains(t, got[0], "no python3 in the toolchain image")

	// A check that needs what the image lacks cannot apply: an error with
	// the pre-flight's reason, never a failure.
	var na *NotApplicable
	require.ErrorAs(t, sb.Applies(t.Context(), ws, []string{"python3", "-m", "pytest"}), &na)
	assert.Equal(t, got[0], na.Reason)
	assert.NoError(t, sb.Applies(t.Context(), ws, []string{"pytest"}), "the step fetches pytest")
}

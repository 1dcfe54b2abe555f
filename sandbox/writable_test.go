package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/api/types/mount"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/lang"
)

// TestWritableLayerInProfiles: bwrap mounts a tmpfs over each writable
// directory after the read-only binds that hold it, of /tmp's size; a box
// holds a command's layers only when it has them; a sibling gets a tmpfs
// mount each, the same value for two commands (so one Docker box holds
// both).
func TestWritableLayerInProfiles(t *testing.T) {
	t.Parallel()
	p := profile{tmpSize: 1 << 20, depBinds: []deps.Bind{{Host: "/deps/node_modules", Inside: "/ws/node_modules"}},
		depWritable: []string{"/ws/node_modules/.cache"}}
	args := p.args([]string{"npm", "test"})
	ro, tmpfs := -1, -1
	for i, a := range args {
		switch {
		case a == "--ro-bind" && args[i+2] == "/ws/node_modules":
			ro = i
		case a == "--tmpfs" && args[i+1] == "/ws/node_modules/.cache":
			tmpfs = i
			assert.Equal(t, []string{"--size", "1048576"}, args[i-2:i], "the layer is as large as /tmp at most")
		}
	}
	require.NotEqual(t, -1, tmpfs, "a tmpfs over the writable directory: %q", args)
	assert.Less(t, ro, tmpfs, "the tmpfs is mounted over the read-only install, not under it")

	box := p
	box.depWritable = nil
	assert.False(t, box.holds(p), "a box without the layer does not hold a command that needs it")
	assert.True(t, p.holds(p))

	ws := newWorkspace(t)
	sb := New(Config{Mode: ModeDocker})
	d := &dockerBackend{Backend: docker.Offline(sb.dockerSettings(), "sha256:abc", []string{"/usr/bin"}, ""), s: sb}
	img := &docker.Image{Ref: d.Image(), Path: []string{"/usr/bin"}}
	installed := t.TempDir()
	opts := RunOptions{Workspace: ws, deps: deps.View{Binds: []deps.Bind{{Host: installed, Inside: filepath.Join(ws, "node_modules")}},
		Writable: []string{filepath.Join(ws, "node_modules", ".cache")}}}
	first, err := d.siblingFor(img, []string{"npm", "test"}, opts)
	require.NoError(t, err)
	second, err := d.siblingFor(img, []string{"npm", "test"}, opts)
	require.NoError(t, err)
	var layer *mount.Mount
	for i, m := range first.Mounts {
		if m.Target == filepath.Join(ws, "node_modules", ".cache") {
			layer = &first.Mounts[i]
		}
	}
	require.NotNil(t, layer, "a mount at the writable directory: %+v", first.Mounts)
	assert.Equal(t, mount.TypeTmpfs, layer.Type)
	assert.False(t, layer.ReadOnly)
	require.NotNil(t, layer.TmpfsOptions)
	assert.Equal(t, int64(dockerTmpfsSize), layer.TmpfsOptions.SizeBytes)
	c := &docker.BoxContainer{Image: img, Mounts: first.Mounts}
	assert.True(t, holds(c, &docker.Need{Image: img, Mounts: second.Mounts}), "a Docker box holds the next command's layer")
	assert.False(t, holds(&docker.BoxContainer{Image: img}, &docker.Need{Image: img, Mounts: second.Mounts}))
}

// TestNodeCacheWritablePerRun: a test runner that writes its cache under
// node_modules/.cache (as nyc, ava and babel-loader do) runs in the box;
// the box's next command sees that cache, a check in a sandbox of its own
// (the contract's) starts from the pristine install again, and nothing of
// the cache reaches the install on the host.
func TestNodeCacheWritablePerRun(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb, reg, home := newNodeSandbox(t)
	checkNodeCachePerRun(t, sb, reg, home)
}

// TestDockerNodeCacheWritablePerRun is TestNodeCacheWritablePerRun under
// the Docker backend: the box a sibling container, a check a container of
// its own, the layer a tmpfs mount.
func TestDockerNodeCacheWritablePerRun(t *testing.T) {
	img := requireToolchainImage(t, "node")
	reg := registry.NewRegistry(t)
	home := t.TempDir()
	sb := requireDockerWith(t, Config{Home: home, Agent: os.Args[0], ToolchainImages: map[string]string{"node": img},
		HostEnv: []string{"npm_config_registry=" + reg.NpmURL()}})
	t.Cleanup(func() { _ = sb.Close() })
	t.Parallel()
	checkNodeCachePerRun(t, sb, reg, home)
}

// checkNodeCachePerRun publishes cachetool on reg and runs npm test of a
// repository whose test script is cachetool: twice in the box, then as
// the contract's result and baseline run it; home is sb's state directory.
func checkNodeCachePerRun(t *testing.T, sb *Sandbox, reg *registry.Registry, home string) {
	t.Helper()
	// cachetool counts what its cache held, then adds an entry, where
	// find-cache-dir puts it, and tries to write beside its own files.
	tarball, integrity := reg.AddNpm("cachetool", "1.0.0", map[string]string{
		"package.json": `{"name":"cachetool","version":"1.0.0","bin":{"cachetool":"bin.js"}}`,
		"bin.js": "#!/usr/bin/env node\nconst fs = require('fs'), path = require('path');\n" +
			"const dir = path.join(process.cwd(), 'node_modules', '.cache', 'cachetool');\n" +
			"fs.mkdirSync(dir, { recursive: true });\n" +
			"console.log('cachetool: the cache held ' + fs.readdirSync(dir).length);\n" +
			"fs.writeFileSync(path.join(dir, 'run-' + process.pid), 'x');\n" +
			"try { fs.writeFileSync(path.join(__dirname, 'poison'), 'x'); console.log('cachetool: wrote the install'); }\n" +
			"catch (e) { console.log('cachetool: the install is ' + e.code); }\n",
	})
	app := map[string]string{
		"package.json": `{"name":"app","version":"1.0.0","devDependencies":{"cachetool":"1.0.0"},"scripts":{"test":"cachetool"}}`,
		"package-lock.json": `{"name":"app","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{` +
			`"":{"name":"app","version":"1.0.0","devDependencies":{"cachetool":"1.0.0"}},` +
			`"node_modules/cachetool":{"version":"1.0.0","resolved":"` + tarball + `","integrity":"` + integrity + `","dev":true,"bin":{"cachetool":"bin.js"}}}}`,
	}
	ws, base := newWorkspace(t), newWorkspace(t)
	writeFiles(t, ws, app)
	writeFiles(t, base, app)
	run := func(opts RunOptions) Result {
		t.Helper()
		opts.Timeout = 5 * time.Minute
		r, err := sb.Verify(t.Context(), lang.TierTest, []string{"npm", "test"}, opts)
		require.NoError(t, err)
		require.Equal(t, 0, r.ExitCode, r.Output)
		return r
	}
	first := run(RunOptions{Workspace: ws}).Output
	assert.Contains(t, first, "cachetool: the cache held 0", "the box's first run")
	assert.Contains(t, first, "cachetool: the install is EROFS", "the rest of the install stays read-only")
	assert.Contains(t, run(RunOptions{Workspace: ws}).Output, "cachetool: the cache held 1", "the run's next command sees its cache")
	assert.Contains(t, run(RunOptions{Workspace: ws, NoBox: true}).Output, "cachetool: the cache held 0",
		"a check of its own (the contract's result) starts from the pristine install")
	assert.Contains(t, run(RunOptions{Workspace: base, MountAt: ws, NoBox: true}).Output, "cachetool: the cache held 0",
		"so does the contract's baseline, the start commit's checkout seen where the workspace is")

	deps, err := filepath.Glob(filepath.Join(home, "cache", "deps", "node-*", "node_modules"))
	require.NoError(t, err)
	require.Len(t, deps, 1)
	assert.FileExists(t, filepath.Join(deps[0], "cachetool", "bin.js"))
	assert.NoFileExists(t, filepath.Join(deps[0], "cachetool", "poison"))
	entries, err := os.ReadDir(filepath.Join(deps[0], ".cache"))
	require.NoError(t, err)
	assert.Empty(t, entries, "the sandboxes' writes never reached the install on the host")
	for _, dir := range []string{ws, base} {
		assert.Empty(t, filesNamed(t, dir, "cachetool"), "nor the workspace")
	}
}

// TestPytestCachePerRun: pytest's cache (the cache fixture, --lf, --ff)
// works in the box and is the run's: the box's next command sees it, a
// check in a sandbox of its own starts without it, and neither
// .pytest_cache nor __pycache__ is written into the workspace.
func TestPytestCachePerRun(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	requireTool(t, sb, "pytest")
	ws := newWorkspace(t)
	writeFiles(t, ws, map[string]string{
		"pytest.ini": "[pytest]\n",
		"test_runs.py": "def test_runs(cache):\n" +
			"    n = cache.get('core/runs', 0)\n" +
			"    print('runs before: %d' % n)\n" +
			"    cache.set('core/runs', n + 1)\n",
	})
	run := func(noBox bool) string {
		t.Helper()
		r, err := sb.Verify(t.Context(), lang.TierTest, []string{"python3", "-m", "pytest", "-q", "-s"}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute, NoBox: noBox})
		require.NoError(t, err)
		require.Equal(t, 0, r.ExitCode, r.Output)
		return r.Output
	}
	assert.Contains(t, run(false), "runs before: 0", "the box's first run")
	assert.Contains(t, run(false), "runs before: 1", "the run's next command sees its cache")
	assert.Contains(t, run(true), "runs before: 0", "a check of its own starts without it")
	assert.Empty(t, filesNamed(t, ws, ".pytest_cache"), "pytest's cache is not the workspace's")
	assert.Empty(t, filesNamed(t, ws, "__pycache__"), "nor is bytecode")
}

package deps

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readFrom reads the named files of files, as readManifests does of a
// workspace.
func readFrom(files map[string]string) func(...string) (map[string][]byte, error) {
	return func(names ...string) (map[string][]byte, error) {
		out := map[string][]byte{}
		for _, n := range names {
			if b, ok := files[n]; ok {
				out[n] = []byte(b)
			}
		}
		return out, nil
	}
}

// TestPlanLockless: a manifest without a lockfile plans a resolving step
// that runs nothing and sees the manifest alone; a dependency of another
// source refuses it before anything is fetched; a resolved lockfile is
// checked as a committed one is.
func TestPlanLockless(t *testing.T) {
	t.Parallel()
	const registry = "http://127.0.0.1:9/npm/"
	hostEnv := []string{"npm_config_registry=" + registry}
	t.Run("npm resolves", func(t *testing.T) {
		t.Parallel()
		plan, note, ok, err := planNodeDeps(readFrom(map[string]string{"package.json": `{"dependencies":{"greet":"^1.0.0"}}`, ".npmrc": "registry=http://evil/"}), hostEnv, nil)
		require.NoError(t, err)
		require.True(t, ok, note)
		assert.Equal(t, "package-lock.json", plan.Resolves)
		assert.Equal(t, []string{"package.json"}, slices.Sorted(maps.Keys(plan.Files)), "the manifest alone, no .npmrc")
		assert.Subset(t, plan.Argv, []string{"--package-lock-only", "--ignore-scripts"})
		assert.Subset(t, plan.Env, []string{"npm_config_userconfig=/dev/null", "npm_config_ignore_scripts=true", "npm_config_registry=" + registry, "npm_config_package_lock=true"})
		assert.Equal(t, []string{"127.0.0.1:9"}, plan.Hosts)
	})
	t.Run("npm refuses a git dependency before resolving", func(t *testing.T) {
		t.Parallel()
		_, note, ok, err := planNodeDeps(readFrom(map[string]string{"package.json": `{"dependencies":{"evil":"git+https://example.com/evil.git"}}`}), hostEnv, nil)
		require.NoError(t, err)
		assert.False(t, ok)
		assert.Contains(t, note, `evil "git+https://example.com/evil.git" in package.json (not a version range of the registry)`)
	})
	t.Run("npm checks what it resolved", func(t *testing.T) {
		t.Parallel()
		lock := `{"lockfileVersion":3,"packages":{"":{},"node_modules/greet":{"version":"1.0.0","resolved":"http://127.0.0.1:8/greet.tgz","integrity":"sha512-AA=="}}}`
		_, note, ok, err := planNodeDeps(readFrom(map[string]string{"package.json": `{"dependencies":{"greet":"^1.0.0"}}`}), hostEnv, []byte(lock))
		require.NoError(t, err)
		assert.False(t, ok)
		assert.Contains(t, note, "is not on the configured registry")
	})
	t.Run("npm fetches what it resolved", func(t *testing.T) {
		t.Parallel()
		lock := `{"lockfileVersion":3,"packages":{"":{},"node_modules/greet":{"version":"1.0.0","resolved":"` + registry + `greet/-/greet-1.0.0.tgz","integrity":"sha512-AA=="}}}`
		plan, note, ok, err := planNodeDeps(readFrom(map[string]string{"package.json": `{"dependencies":{"greet":"^1.0.0"}}`}), hostEnv, []byte(lock))
		require.NoError(t, err)
		require.True(t, ok, note)
		assert.Empty(t, plan.Resolves)
		assert.Equal(t, "ci", plan.Argv[1])
		assert.Equal(t, lock, string(plan.Files["package-lock.json"]))
	})
	t.Run("cargo resolves", func(t *testing.T) {
		t.Parallel()
		plan, note, ok, err := planRustDeps(func([]byte) []string { return nil }, readFrom(map[string]string{"Cargo.toml": "[package]\nname = \"app\"\n[dependencies]\ngreet = \"1\"\n"}), nil)
		require.NoError(t, err)
		require.True(t, ok, note)
		assert.Equal(t, "Cargo.lock", plan.Resolves)
		assert.Equal(t, []string{"cargo", "generate-lockfile"}, plan.Argv)
		assert.NotContains(t, plan.Files, "build.rs")
	})
	t.Run("cargo refuses a git dependency before resolving", func(t *testing.T) {
		t.Parallel()
		_, note, ok, err := planRustDeps(func([]byte) []string { return nil }, readFrom(map[string]string{"Cargo.toml": "[dependencies]\nevil = { git = \"https://example.com/evil\" }\n"}), nil)
		require.NoError(t, err)
		assert.False(t, ok)
		assert.Contains(t, note, "Cargo.toml names a git dependency")
	})
	t.Run("pip resolves ranges", func(t *testing.T) {
		t.Parallel()
		plan, note, ok, err := planPythonDeps(readFrom(map[string]string{"requirements.txt": "greet>=1\n"}), nil, nil, nil)
		require.NoError(t, err)
		require.True(t, ok, note)
		assert.Equal(t, pipReportFile, plan.Resolves)
		assert.Subset(t, plan.Argv, []string{"--dry-run", "--report", pipReportFile, "--only-binary", ":all:"})
		assert.NotContains(t, plan.Argv, "--target")
	})
	t.Run("pip installs pins as they are", func(t *testing.T) {
		t.Parallel()
		plan, note, ok, err := planPythonDeps(readFrom(map[string]string{"requirements.txt": "greet==1.0.0\n"}), nil, nil, nil)
		require.NoError(t, err)
		require.True(t, ok, note)
		assert.Empty(t, plan.Resolves)
		assert.Contains(t, plan.Argv, "--target")
	})
	t.Run("pip installs what the run resolved", func(t *testing.T) {
		t.Parallel()
		plan, note, ok, err := planPythonDeps(readFrom(map[string]string{"requirements.txt": "greet>=1\n"}), []string{"pytest"}, nil, []byte("greet==1.0.0\npytest==8.0.0\n"))
		require.NoError(t, err)
		require.True(t, ok, note)
		assert.Empty(t, plan.Resolves)
		assert.Equal(t, []string{pinnedRequirementsFile}, slices.Sorted(maps.Keys(plan.Files)))
		i := slices.Index(plan.Argv, "-r")
		require.GreaterOrEqual(t, i, 0)
		assert.Equal(t, pinnedRequirementsFile, plan.Argv[i+1])
		assert.True(t, strings.Contains(plan.Failed(""), "of the versions resolved for this run"))
	})
}

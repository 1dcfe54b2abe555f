package sandbox

import (
	"testing"

	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, "bwrap": ModeBwrap, "docker": ModeDocker, "OFF": ModeOff} {
		got, err := ParseMode(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseMode("podman")
	assert.ErrorContains(t, err, `CORE_SESSION_SANDBOX must be auto, bwrap, docker or off, got "podman"`)
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"CORE_SESSION_SANDBOX": "bwrap", "PATH": "/usr/bin", "HOME": "/home/u", "LANG": "de_DE.UTF-8",
		"GOPROXY": "https://proxy.example", "GOPRIVATE": "example.com/*", "GITHUB_TOKEN": "ghs_secret",
		"GOMODCACHE": "/cache/mod", "XDG_CACHE_HOME": "/cache",
	}
	cfg, err := ConfigFromEnv("/state", func(k string) string { return env[k] })
	require.NoError(t, err)
	// A named cargo registry's index is looked up when a Cargo.toml
	// names it: compared apart, a function.
	require.NotNil(t, cfg.CargoIndex)
	assert.Empty(t, cfg.CargoIndex("local"))
	env["CARGO_REGISTRIES_LOCAL_INDEX"] = "http://127.0.0.1:9/index"
	assert.Equal(t, "http://127.0.0.1:9/index", cfg.CargoIndex("local"))
	cfg.CargoIndex = nil
	assert.Equal(t, Config{
		Home: "/state", Mode: ModeBwrap, Path: "/usr/bin", HostHome: "/home/u", Lang: "de_DE.UTF-8",
		HostEnv:    []string{"GOPROXY=https://proxy.example", "GOPRIVATE=example.com/*"},
		UserCaches: true, GoEnv: []string{"GOMODCACHE=/cache/mod", "XDG_CACHE_HOME=/cache"},
		Limits: limit.DefaultLimits(), ToolchainImages: docker.DefaultToolchainImages(),
	}, cfg, "the proxy settings pass, nothing else of the environment does")
	env["CORE_SESSION_SANDBOX"] = "docker"
	env["DOCKER_HOST"] = "tcp://127.0.0.1:2375"
	env["CORE_SANDBOX_IMAGE"] = "core:ci"
	cfg, err = ConfigFromEnv("/state", func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, ModeDocker, cfg.Mode)
	assert.Equal(t, "tcp://127.0.0.1:2375", cfg.DockerHost)
	assert.Equal(t, "core:ci", cfg.DockerImage)
	env["CORE_SANDBOX_TOOLCHAIN_IMAGES"] = "node=x"
	cfg, err = ConfigFromEnv("/state", func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "x", cfg.ToolchainImages["node"])
	env["CORE_SANDBOX_TOOLCHAIN_IMAGES"] = "ruby=x"
	_, err = ConfigFromEnv("/state", func(k string) string { return env[k] })
	assert.ErrorContains(t, err, `CORE_SANDBOX_TOOLCHAIN_IMAGES: toolchain images are ecosystem=image pairs`)
	env["CORE_SANDBOX_TOOLCHAIN_IMAGES"] = ""
	env["CORE_SESSION_SANDBOX"] = "podman"
	_, err = ConfigFromEnv("/state", func(k string) string { return env[k] })
	assert.ErrorContains(t, err, "CORE_SESSION_SANDBOX must be auto, bwrap, docker or off")
}

// TestConfigFromEnvCargoIndex: the index of a cargo registry is the
// host's CARGO_REGISTRIES_<NAME>_INDEX, looked up by the registry's name
// (dashes as underscores), and nothing else of the registry (its token)
// is read; deps.Host's cargo indexes are built on it.
func TestConfigFromEnvCargoIndex(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"CARGO_REGISTRIES_MY_REG_INDEX": "http://127.0.0.1:9/my-reg/",
		"CARGO_REGISTRIES_MY_REG_TOKEN": "secret",
	}
	cfg, err := ConfigFromEnv(t.TempDir(), func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9/my-reg/", cfg.CargoIndex("my-reg"))
	assert.Empty(t, cfg.CargoIndex("unset"))
	assert.NotContains(t, cfg.HostEnv, "CARGO_REGISTRIES_MY_REG_TOKEN=secret")
}

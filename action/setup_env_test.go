package action

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/setup"
)

// TestSetupEnv: the Action's own defaults reach the sandbox and the run:
// the sandbox_image input names the sibling containers' image (the
// workflow's CORE_SANDBOX_IMAGE wins), the Go caches are core's own, and
// the checks the repository's CI runs are taken; the toolchain_images input
// names the other languages' images over the defaults.
func TestSetupEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		env        map[string]string
		image      string
		toolchains map[string]string
	}{
		{name: "core's own image", env: map[string]string{}},
		{name: "a toolchain image", env: map[string]string{"INPUT_TOOLCHAIN_IMAGES": " python=ghcr.io/o/py:1, rust=none "},
			toolchains: map[string]string{"python": "ghcr.io/o/py:1", "node": docker.DefaultToolchainImages()["node"], "rust": ""}},
		{name: "the input", env: map[string]string{"INPUT_SANDBOX_IMAGE": " ghcr.io/o/core-python:1 "}, image: "ghcr.io/o/core-python:1"},
		{name: "the workflow's environment wins", env: map[string]string{"INPUT_SANDBOX_IMAGE": "a", "CORE_SANDBOX_IMAGE": "b"}, image: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.env["HOME"] = t.TempDir()
			e := setupEnv(Env{Getenv: func(k string) string { return tt.env[k] }})
			cfg, err := sandbox.ConfigFromEnv(e.Home, e.Getenv)
			require.NoError(t, err)
			assert.Equal(t, tt.image, cfg.DockerImage)
			if tt.toolchains == nil {
				tt.toolchains = docker.DefaultToolchainImages()
			}
			assert.Equal(t, tt.toolchains, cfg.ToolchainImages)
			assert.False(t, cfg.UserCaches)
			assert.Equal(t, "true", e.Defaults[setup.ChecksFromCI])
		})
	}
}

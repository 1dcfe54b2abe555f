package fingerprint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/limit"
)

func TestNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"GOFLAGS", "HOME", "PATH"}, Names([]string{"PATH=/usr/bin:/secret", "HOME=/tmp", "GOFLAGS=-x", "PATH=again"}))
	assert.Nil(t, Names(nil))
}

func TestDescribeHash(t *testing.T) {
	t.Parallel()
	a := Describe("bwrap", "test", []string{"/usr", "/etc"}, limit.DefaultLimits())
	assert.Equal(t, a.Hash(), Describe("bwrap", "test", []string{"/usr", "/etc"}, limit.DefaultLimits()).Hash())
	assert.NotEqual(t, a.Hash(), Describe("bwrap", "test", []string{"/usr"}, limit.DefaultLimits()).Hash())
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, a.Hash())
}

// program writes an executable shell script named name in dir.
func program(t *testing.T, dir, name, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755))
}

func TestToolchains(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	program(t, bin, "go", `echo "go version go1.99.0 test/arch"; echo second line`)
	program(t, bin, "python3", `exit 3`)
	got := Toolchains(t.Context(), bin+":relative", [][]string{{"go", "vet", "./..."}, {"go", "test"}, {"gofmt", "-l", "."}, {"pytest"}, {"make"}, {}})
	assert.Equal(t, map[string]string{"go": "go version go1.99.0 test/arch"}, got, "one line a toolchain; one that fails or is not there is left out")
	assert.Nil(t, Toolchains(t.Context(), t.TempDir(), [][]string{{"cargo", "test"}}))
}

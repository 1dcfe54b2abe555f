package sandbox

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/limit"
)

// Two machines that confine a check alike describe it alike, whatever
// their homes and paths; a limit, a tier or a backend of their own makes
// another hash.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a := New(Config{Home: t.TempDir(), Path: os.Getenv("PATH")})
	b := New(Config{Home: t.TempDir(), Path: "/usr/local/bin:/usr/bin", HostHome: "/home/x"})
	d, tools := a.Fingerprint(ctx, BackendBwrap, lang.TierTest, [][]string{{"go", "vet", "./..."}})
	other, _ := b.Fingerprint(ctx, BackendBwrap, lang.TierTest, nil)
	assert.Equal(t, d.Hash(), other.Hash(), "no path of the machine's is in the description")
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, d.Hash())
	docker, _ := a.Fingerprint(ctx, BackendDocker, lang.TierTest, nil)
	assert.NotEqual(t, d.Hash(), docker.Hash())
	build, _ := a.Fingerprint(ctx, BackendBwrap, lang.TierBuild, nil)
	assert.NotEqual(t, d.Hash(), build.Hash())
	tight := limit.DefaultLimits()
	tight.Processes = 10
	c, _ := New(Config{Home: t.TempDir(), Limits: tight}).Fingerprint(ctx, BackendBwrap, lang.TierTest, nil)
	assert.NotEqual(t, d.Hash(), c.Hash(), "the limits are in the profile")
	assert.Contains(t, d.ReadOnly, "/usr")
	assert.Contains(t, tools["go"], "go version go", "the Go on PATH")
}

func TestCheckEnvNames(t *testing.T) {
	t.Parallel()
	goNames := CheckEnvNames("go")
	for _, want := range []string{"PATH", "HOME", "GOFLAGS", "GOPROXY", "GOCACHE", "GOMODCACHE"} {
		assert.Contains(t, goNames, want)
	}
	for _, n := range goNames {
		assert.NotContains(t, n, "=", "names, never values")
	}
	assert.Contains(t, CheckEnvNames("pytest"), "PYTHONPATH")
	assert.Contains(t, CheckEnvNames("cargo"), "CARGO_HOME")
	assert.NotContains(t, goNames, "CARGO_HOME")
}

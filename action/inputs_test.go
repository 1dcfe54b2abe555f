package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
)

func actionWith(env map[string]string) *githubactions.Action {
	return githubactions.New(githubactions.WithGetenv(func(k string) string { return env[k] }), githubactions.WithWriter(&strings.Builder{}))
}

func TestReadInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, in Inputs)
		wantErr string
	}{
		{name: "defaults", env: map[string]string{}, check: func(t *testing.T, in Inputs) {
			assert.Equal(t, ModeAuto, in.Mode)
			assert.Equal(t, "auto", in.Verify)
			assert.Equal(t, "forge", in.ForgeLabel)
			assert.False(t, in.DryRun)
		}},
		{name: "all set", env: map[string]string{"INPUT_MODE": "Fix", "INPUT_ISSUE": "#12", "INPUT_MAX_TURNS": "7", "INPUT_TIMEOUT": "45m", "INPUT_DRY_RUN": "true", "INPUT_VERIFY": "test", "INPUT_GITHUB_TOKEN": " t "},
			check: func(t *testing.T, in Inputs) {
				assert.Equal(t, ModeFix, in.Mode)
				assert.Equal(t, 12, in.Issue)
				assert.Equal(t, 7, in.MaxTurns)
				assert.Equal(t, 45*time.Minute, in.Timeout)
				assert.True(t, in.DryRun)
				assert.Equal(t, "t", in.GitHubToken)
			}},
		{name: "token from the environment", env: map[string]string{"GITHUB_TOKEN": "env-token"}, check: func(t *testing.T, in Inputs) {
			assert.Equal(t, "env-token", in.GitHubToken)
		}},
		{name: "bad mode", env: map[string]string{"INPUT_MODE": "party"}, wantErr: `input mode must be auto, fix, resolve or forge, got "party"`},
		{name: "bad verify", env: map[string]string{"INPUT_VERIFY": "all"}, wantErr: `input verify must be auto, off, build or test, got "all"`},
		{name: "bad issue", env: map[string]string{"INPUT_ISSUE": "twelve"}, wantErr: `input issue must be a positive number, got "twelve"`},
		{name: "bad timeout", env: map[string]string{"INPUT_TIMEOUT": "soon"}, wantErr: `input timeout must be a duration`},
		{name: "bad dry run", env: map[string]string{"INPUT_DRY_RUN": "maybe"}, wantErr: `input dry_run must be true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := readInputs(actionWith(tt.env))
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, in)
		})
	}
}

// TestVerifyTier: auto is build, raised to test when the sandbox works;
// an explicit test with a failing sandbox fails clearly.
func TestVerifyTier(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'bubblewrap 0.8.0'; exit 0; fi\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	broken := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: dir + ":" + os.Getenv("PATH")})
	var out strings.Builder
	r := &runner{a: githubactions.New(githubactions.WithGetenv(func(string) string { return "" }), githubactions.WithWriter(&out)),
		env: Env{Getenv: func(string) string { return "" }}}

	r.in.Verify = "auto"
	tier, err := r.verifyTier(t.Context(), broken)
	require.NoError(t, err)
	assert.Equal(t, sandbox.TierBuild, tier)
	assert.Contains(t, out.String(), "::notice::core: the sandbox is not usable here (user namespaces are refused")

	r.in.Verify = "test"
	_, err = r.verifyTier(t.Context(), broken)
	assert.ErrorContains(t, err, "--verify test runs workspace code and needs the sandbox")
	var ce *session.ConfigError
	assert.ErrorAs(t, err, &ce, "a missing sandbox for verify: test is failure kind configuration")

	r.in.Verify = "build"
	tier, err = r.verifyTier(t.Context(), broken)
	require.NoError(t, err)
	assert.Equal(t, sandbox.TierBuild, tier)

	if p := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}).Probe(t.Context()); p.Usable {
		r.in.Verify = "auto"
		tier, err = r.verifyTier(t.Context(), sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}))
		require.NoError(t, err)
		assert.Equal(t, sandbox.TierTest, tier, "auto rises to test where the sandbox works")
	} else if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
		t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %s", p.Cause)
	}
}

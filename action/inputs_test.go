package action

import (
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/setup"
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
			assert.Equal(t, "forge", in.ForgeLabel)
			assert.Empty(t, in.Settings, "no setting given: setup decides")
		}},
		{name: "all set", env: map[string]string{"INPUT_MODE": "Fix", "INPUT_ISSUE": "#12", "INPUT_MAX_TURNS": "7", "INPUT_TIMEOUT": "45m", "INPUT_DRY_RUN": "true", "INPUT_VERIFY": "test", "INPUT_GITHUB_TOKEN": " t "},
			check: func(t *testing.T, in Inputs) {
				assert.Equal(t, ModeFix, in.Mode)
				assert.Equal(t, 12, in.Issue)
				assert.Equal(t, setup.Values{"max-turns": "7", "timeout": "45m", "dry-run": "true", "verify": "test"}, in.Settings)
				assert.Equal(t, "t", in.GitHubToken)
			}},
		{name: "verify auto leaves it to the environment", env: map[string]string{"INPUT_VERIFY": "auto"}, check: func(t *testing.T, in Inputs) {
			assert.NotContains(t, in.Settings, "verify")
		}},
		{name: "token from the environment", env: map[string]string{"GITHUB_TOKEN": "env-token"}, check: func(t *testing.T, in Inputs) {
			assert.Equal(t, "env-token", in.GitHubToken)
		}},
		{name: "bad mode", env: map[string]string{"INPUT_MODE": "party"}, wantErr: `input mode must be auto, fix, resolve or forge, got "party"`},
		{name: "bad verify", env: map[string]string{"INPUT_VERIFY": "all"}, wantErr: `the verify input: must be auto, off, build or test, got "all"`},
		{name: "bad issue", env: map[string]string{"INPUT_ISSUE": "twelve"}, wantErr: `input issue must be a positive number, got "twelve"`},
		{name: "bad timeout", env: map[string]string{"INPUT_TIMEOUT": "soon"}, wantErr: `the timeout input: must be a duration`},
		{name: "bad dry run", env: map[string]string{"INPUT_DRY_RUN": "maybe"}, wantErr: `the dry_run input: must be true or false`},
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

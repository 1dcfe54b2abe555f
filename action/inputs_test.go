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
		{name: "trigger, label, bots and price", env: map[string]string{"INPUT_TRIGGER_PHRASE": "@core", "INPUT_LABEL": "agent", "INPUT_ALLOWED_BOTS": "dependabot[bot], renovate", "INPUT_PRICE_PER_MTOK": "0.5 1.5"},
			check: func(t *testing.T, in Inputs) {
				assert.Equal(t, "@core", in.TriggerPhrase)
				assert.Equal(t, "agent", in.Label)
				assert.Equal(t, []string{"dependabot[bot]", "renovate"}, in.AllowedBots)
				assert.True(t, in.allowedBot("dependabot[bot]"))
				assert.True(t, in.allowedBot("Renovate[bot]"))
				assert.False(t, in.allowedBot("helper[bot]"))
				assert.Equal(t, "0.5 1.5", in.Settings[setup.PricePerMtok], "setup reads it")
			}},
		{name: "trigger and label defaults, no bots, no price", env: map[string]string{}, check: func(t *testing.T, in Inputs) {
			assert.Equal(t, "/core", in.TriggerPhrase)
			assert.Equal(t, "core:fix", in.Label)
			assert.Empty(t, in.AllowedBots)
			assert.False(t, in.allowedBot("dependabot[bot]"))
		}},
		{name: "bad trigger", env: map[string]string{"INPUT_TRIGGER_PHRASE": "hey core"}, wantErr: `input trigger_phrase: the trigger phrase must be one word`},
		{name: "bad price", env: map[string]string{"INPUT_PRICE_PER_MTOK": "cheap"}, wantErr: `the price_per_mtok input: must be a price in dollars per million tokens`},
		{name: "half a price", env: map[string]string{"INPUT_PRICE_INPUT_PER_MTOK": "1"}, wantErr: `the price_output_per_mtok input: is needed too`},
		{name: "bad budget", env: map[string]string{"INPUT_BUDGET_USD": "lots"}, wantErr: `the budget_usd input: must be a positive amount of dollars`},
		{name: "budgets", env: map[string]string{"INPUT_BUDGET_USD": "2.5", "INPUT_BUDGET_TOKENS": "90000", "INPUT_PRICE_PER_MTOK": "1"},
			check: func(t *testing.T, in Inputs) {
				assert.Equal(t, setup.Values{"budget-usd": "2.5", "budget-tokens": "90000", "price-per-mtok": "1"}, in.Settings)
			}},
		{name: "bad mode", env: map[string]string{"INPUT_MODE": "party"}, wantErr: `input mode must be auto, fix, resolve, review or forge, got "party"`},
		{name: "bad verify", env: map[string]string{"INPUT_VERIFY": "all"}, wantErr: `the verify input: must be auto, off, build or test, got "all"`},
		{name: "bad issue", env: map[string]string{"INPUT_ISSUE": "twelve"}, wantErr: `input issue must be a positive number, got "twelve"`},
		{name: "bad timeout", env: map[string]string{"INPUT_TIMEOUT": "soon"}, wantErr: `the timeout input: must be a duration`},
		{name: "bad dry run", env: map[string]string{"INPUT_DRY_RUN": "maybe"}, wantErr: `the dry_run input: must be true or false`},
		{name: "checks, one per line, ready, workflow changes", env: map[string]string{"INPUT_CHECKS": "go vet ./...\n\n  # the tests\n go test ./... \n", "INPUT_READY": "true", "INPUT_ALLOW_WORKFLOW_CHANGES": "true"},
			check: func(t *testing.T, in Inputs) {
				assert.Equal(t, "go vet ./...\n\n  # the tests\n go test ./...", in.Settings["check"], "setup splits the lines")
				assert.Equal(t, "true", in.Settings["ready"])
				assert.Equal(t, "true", in.Settings["allow-workflow-changes"])
			}},
		{name: "tool calls", env: map[string]string{"INPUT_TOOL_CALLS": "Native"}, check: func(t *testing.T, in Inputs) {
			assert.Equal(t, "Native", in.Settings["tool-calls"], "setup reads it")
		}},
		{name: "bad tool calls", env: map[string]string{"INPUT_TOOL_CALLS": "xml"}, wantErr: `the tool_calls input: must be text, native or auto, got "xml"`},
		{name: "bad ready", env: map[string]string{"INPUT_READY": "soon"}, wantErr: `the ready input: must be true or false, got "soon"`},
		{name: "bad allow_workflow_changes", env: map[string]string{"INPUT_ALLOW_WORKFLOW_CHANGES": "yes please"}, wantErr: `the allow_workflow_changes input: must be true or false, got "yes please"`},
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

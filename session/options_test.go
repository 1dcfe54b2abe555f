package session

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/heartbeat"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
)

// noModel is a Completer never asked: withDefaults only needs one.
type noModel struct{}

func (noModel) Complete(context.Context, []model.Message) (model.Reply, error) {
	return model.Reply{}, errors.New("not asked")
}

// bareOptions has the collaborators withDefaults requires, and nothing else.
func bareOptions() Options {
	return Options{Services: Services{Store: &Store{}, Sandbox: &sandbox.Sandbox{}, Client: noModel{}}}
}

// TestOptionGroupDefaults: each group's zero values become its defaults.
func TestOptionGroupDefaults(t *testing.T) {
	t.Parallel()
	o, err := bareOptions().withDefaults()
	require.NoError(t, err)
	assert.Equal(t, Limits{MaxTurns: DefaultMaxTurns, Timeout: DefaultTimeout, TurnTimeout: DefaultTurnTimeout}, o.Limits)
	assert.Equal(t, Verification{Verify: lang.TierOff, ShellTimeout: DefaultShellTimeout,
		BuildCeiling: boxagent.BuildCeiling(DefaultShellTimeout)}, o.Verification)
	assert.Equal(t, Inference{Model: DefaultModel, ToolCalls: ToolCallsText, ContextTokens: DefaultContextTokens}, o.Inference)
	assert.Equal(t, Goal{}, o.Goal, "the goal has no defaults")
	assert.Equal(t, Landing{}, o.Landing, "landing has no defaults")
	assert.Equal(t, DefaultPollEvery, o.Live.PollEvery)
	assert.Equal(t, heartbeat.Default, o.Live.Heartbeat)
	assert.NotNil(t, o.Live.Control, "the run makes its own control")
	assert.Equal(t, io.Discard, o.Live.Progress)
	assert.False(t, o.Live.AskNext)
	assert.Equal(t, io.Discard, o.Services.Output)
	assert.Equal(t, tools.DenyApprover{}, o.Services.Approver)
	require.NotNil(t, o.Services.Now)
	assert.WithinDuration(t, time.Now(), o.Services.Now(), time.Hour)
}

// TestOptionGroupDefaultsKeepWhatIsSet: a value given is kept, and
// Interactive implies AskNext.
func TestOptionGroupDefaultsKeepWhatIsSet(t *testing.T) {
	t.Parallel()
	in := bareOptions()
	control := live.NewControl()
	in.Limits = Limits{MaxTurns: 3, Timeout: time.Minute, TurnTimeout: time.Second}
	in.Verification = Verification{Verify: lang.TierBuild, ShellTimeout: time.Minute}
	in.Inference = Inference{Model: "m", ToolCalls: ToolCallsNative, ContextTokens: 2048}
	in.Live = Live{Interactive: true, PollEvery: time.Second, Heartbeat: time.Second, Control: control}
	o, err := in.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, in.Limits, o.Limits)
	assert.Equal(t, 4*time.Minute, o.Verification.BuildCeiling, "the ceiling follows the shell timeout")
	assert.Equal(t, lang.TierBuild, o.Verification.Verify)
	assert.Equal(t, in.Inference, o.Inference)
	assert.True(t, o.Live.AskNext, "interactive implies asking for the next instruction")
	assert.Equal(t, time.Second, o.Live.PollEvery)
	assert.Equal(t, time.Second, o.Live.Heartbeat)
	assert.Same(t, control, o.Live.Control)
}

// TestOptionGroupChecks: each group refuses what it refused in one
// Options, naming the option, in the same order.
func TestOptionGroupChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(*Options)
		option string // the ConfigError's option; empty: not a ConfigError
		want   string
	}{
		{name: "negative turns", edit: func(o *Options) { o.Limits.MaxTurns = -1 }, option: "max-turns", want: "must be positive, got -1"},
		{name: "negative timeout", edit: func(o *Options) { o.Limits.Timeout = -1 }, option: "timeout", want: "timeouts must be positive"},
		{name: "negative turn timeout", edit: func(o *Options) { o.Limits.TurnTimeout = -1 }, option: "timeout", want: "timeouts must be positive"},
		{name: "negative shell timeout", edit: func(o *Options) { o.Verification.ShellTimeout = -1 }, option: "timeout", want: "timeouts must be positive"},
		{name: "negative idle timeout", edit: func(o *Options) { o.Live.IdleTimeout = -1 }, option: "timeout", want: "timeouts must be positive"},
		{name: "negative idle after a message", edit: func(o *Options) { o.Live.IdleAfterMessage = -1 }, option: "timeout", want: "timeouts must be positive"},
		{name: "negative build ceiling", edit: func(o *Options) { o.Verification.BuildCeiling = -time.Second }, option: "build-ceiling", want: "must be a positive duration, such as 8m, got -1s"},
		{name: "unknown tool calls", edit: func(o *Options) { o.Inference.ToolCalls = "smoke" }, option: "tool-calls", want: `must be text, native or auto, got "smoke"`},
		{name: "negative dollars", edit: func(o *Options) { o.Limits.Budget.USD = -1 }, option: "budget-usd", want: "must be a positive amount of dollars, got -1"},
		{name: "negative tokens", edit: func(o *Options) { o.Limits.Budget.Tokens = -1 }, option: "budget-tokens", want: "must be a positive number of tokens, got -1"},
		{name: "negative input price", edit: func(o *Options) { o.Limits.Price = &budget.Price{InputPerMtok: -1} }, option: "price-input-per-mtok", want: "prices must not be negative"},
		{name: "negative output price", edit: func(o *Options) { o.Limits.Price = &budget.Price{OutputPerMtok: -1} }, option: "price-input-per-mtok", want: "prices must not be negative"},
		{name: "small context", edit: func(o *Options) { o.Inference.ContextTokens = 1000 }, option: "context-tokens", want: "must be at least 1024, got 1000"},
		{name: "no store", edit: func(o *Options) { o.Services.Store = nil }, want: "no session store"},
		{name: "no sandbox", edit: func(o *Options) { o.Services.Sandbox = nil }, want: "no sandbox"},
		{name: "no model", edit: func(o *Options) { o.Services.Client = nil }, want: "no model client"},
		{name: "turns before the budget", edit: func(o *Options) { o.Limits.Budget.USD = -1; o.Limits.MaxTurns = -1 }, option: "max-turns", want: "must be positive"},
		{name: "timeouts before tool calls", edit: func(o *Options) { o.Inference.ToolCalls = "smoke"; o.Live.IdleTimeout = -1 }, option: "timeout", want: "timeouts must be positive"},
		{name: "the budget before the context", edit: func(o *Options) { o.Inference.ContextTokens = 1; o.Limits.Budget.Tokens = -1 }, option: "budget-tokens", want: "must be a positive number"},
		{name: "options before collaborators", edit: func(o *Options) { o.Services.Store = nil; o.Inference.ContextTokens = 1 }, option: "context-tokens", want: "must be at least 1024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := bareOptions()
			tt.edit(&o)
			_, err := o.withDefaults()
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.want)
			var ce *ConfigError
			if tt.option == "" {
				assert.False(t, errors.As(err, &ce), "a missing collaborator is core's, not the user's: %v", err)
				return
			}
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.option, ce.Option)
		})
	}
}

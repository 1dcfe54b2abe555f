package action

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustEvent(t *testing.T, js string) event {
	t.Helper()
	var ev event
	require.NoError(t, json.Unmarshal([]byte(js), &ev))
	return ev
}

func TestDetect(t *testing.T) {
	t.Parallel()
	auto := Inputs{Mode: ModeAuto}
	tests := []struct {
		name      string
		eventName string
		event     string
		in        Inputs
		want      trigger
		nothing   string
		wantErr   string
	}{
		{name: "fix on an issue", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":7,"body":"/core fix make it loud","user":{"login":"alice","type":"User","id":501}},"issue":{"number":3}}`, in: auto,
			want: trigger{mode: ModeFix, number: 3, instruction: "make it loud", actor: user{Login: "alice", Type: "User", ID: 501}, commentID: 7}},
		{name: "resolve on a pull request", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":8,"body":"/core fix","user":{"login":"alice","type":"User"}},"issue":{"number":4,"pull_request":{"url":"x"}}}`, in: auto,
			want: trigger{mode: ModeResolve, number: 4, actor: user{Login: "alice", Type: "User"}, commentID: 8}},
		{name: "edited comment", eventName: "issue_comment",
			event: `{"action":"edited","comment":{"id":8,"body":"/core fix","user":{"login":"alice"}},"issue":{"number":4}}`, in: auto, nothing: "only new comments"},
		{name: "quoted command", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":8,"body":"> /core fix\nno","user":{"login":"alice"}},"issue":{"number":4}}`, in: auto, nothing: "no /core fix"},
		{name: "label on an issue", eventName: "issues",
			event: `{"action":"labeled","label":{"name":"core:fix"},"issue":{"number":5},"sender":{"login":"bob","type":"User","id":502}}`, in: auto,
			want: trigger{mode: ModeFix, number: 5, actor: user{Login: "bob", Type: "User", ID: 502}}},
		{name: "other label", eventName: "issues",
			event: `{"action":"labeled","label":{"name":"bug"},"issue":{"number":5},"sender":{"login":"bob"}}`, in: auto, nothing: "without the core:fix label"},
		{name: "label on a pull request", eventName: "pull_request",
			event: `{"action":"labeled","label":{"name":"core:fix"},"pull_request":{"number":6},"sender":{"login":"bob","type":"User"}}`, in: auto,
			want: trigger{mode: ModeResolve, number: 6, actor: user{Login: "bob", Type: "User"}}},
		{name: "another trigger phrase", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":7,"body":"@core fix it\n/core fix not this","user":{"login":"alice","type":"User"}},"issue":{"number":3}}`, in: Inputs{Mode: ModeAuto, TriggerPhrase: "@core"},
			want: trigger{mode: ModeFix, number: 3, instruction: "it", actor: user{Login: "alice", Type: "User"}, commentID: 7}},
		{name: "the default phrase with another configured", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":7,"body":"/core fix it","user":{"login":"alice"}},"issue":{"number":3}}`, in: Inputs{Mode: ModeAuto, TriggerPhrase: "@core"},
			nothing: "the comment says /core fix, but this step's trigger phrase is @core: write @core fix, or set the trigger_phrase input to /core (the example workflows read it from the repository variable CORE_TRIGGER_PHRASE)"},
		{name: "the phrase with the default configured", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":7,"body":"@core fix it","user":{"login":"alice"}},"issue":{"number":3}}`, in: auto,
			nothing: "the comment says @core fix, but this step's trigger phrase is /core: write /core fix, or set the trigger_phrase input to @core"},
		{name: "no command for any phrase", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":7,"body":"thanks /core team","user":{"login":"alice"}},"issue":{"number":3}}`, in: auto,
			nothing: "the comment holds no /core fix command at the start of a line, outside quotes and code (the phrase is the trigger_phrase input; the example workflows read it from the repository variable CORE_TRIGGER_PHRASE)"},
		{name: "another label", eventName: "issues",
			event: `{"action":"labeled","label":{"name":"agent"},"issue":{"number":5},"sender":{"login":"bob","type":"User"}}`, in: Inputs{Mode: ModeAuto, Label: "agent"},
			want: trigger{mode: ModeFix, number: 5, actor: user{Login: "bob", Type: "User"}}},
		{name: "the default label with another configured", eventName: "issues",
			event: `{"action":"labeled","label":{"name":"core:fix"},"issue":{"number":5},"sender":{"login":"bob"}}`, in: Inputs{Mode: ModeAuto, Label: "agent"},
			nothing: "without the agent label (it added core:fix; core's label is the label input, which the example workflows read from the repository variable CORE_LABEL)"},
		{name: "review comment on a pull request", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":7,"body":"/core review the parser","user":{"login":"alice"}},"issue":{"number":3,"pull_request":{"url":"x"}}}`, in: auto,
			want: trigger{mode: ModeReview, number: 3, instruction: "the parser", actor: user{Login: "alice"}, commentID: 7}},
		{name: "review comment on an issue", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":7,"body":"/core review","user":{"login":"alice"}},"issue":{"number":3}}`, in: auto,
			nothing: "`/core review` reviews a pull request: comment it on one"},
		{name: "review label", eventName: "pull_request",
			event: `{"action":"labeled","label":{"name":"core:review"},"pull_request":{"number":6},"sender":{"login":"bob"}}`, in: auto,
			want: trigger{mode: ModeReview, number: 6, actor: user{Login: "bob"}}},
		{name: "review label on an issue", eventName: "issues",
			event: `{"action":"labeled","label":{"name":"core:review"},"issue":{"number":5},"sender":{"login":"bob"}}`, in: auto, nothing: "without the core:fix label"},
		{name: "opened without review_on_open", eventName: "pull_request",
			event: `{"action":"opened","pull_request":{"number":6},"sender":{"login":"bob"}}`, in: auto, nothing: "without the core:fix label"},
		{name: "opened with review_on_open", eventName: "pull_request",
			event: `{"action":"opened","pull_request":{"number":6},"sender":{"login":"bob"}}`, in: Inputs{Mode: ModeAuto, ReviewOnOpen: true},
			want: trigger{mode: ModeReview, number: 6}},
		{name: "mode review on a pull request event", eventName: "pull_request",
			event: `{"action":"synchronize","pull_request":{"number":6},"sender":{"login":"bob"}}`, in: Inputs{Mode: ModeReview},
			want: trigger{mode: ModeReview, number: 6}},
		{name: "mode review without a pull request", eventName: "push", event: `{}`, in: Inputs{Mode: ModeReview},
			wantErr: "mode review needs the pull_request input (or a pull request event)"},
		{name: "schedule", eventName: "schedule", event: `{}`, in: auto, want: trigger{mode: ModeForge}},
		{name: "push", eventName: "push", event: `{}`, in: auto, nothing: "core does nothing on a push event"},
		{name: "dispatch fix", eventName: "workflow_dispatch", event: `{"inputs":{"mode":"fix","issue":"9"}}`, in: auto,
			want: trigger{mode: ModeFix, number: 9}},
		{name: "dispatch by number", eventName: "workflow_dispatch", event: `{"inputs":{"pull_request":"#10"}}`, in: auto,
			want: trigger{mode: ModeResolve, number: 10}},
		{name: "dispatch empty", eventName: "workflow_dispatch", event: `{"inputs":{}}`, in: auto, nothing: "without mode"},
		{name: "dispatch bad mode", eventName: "workflow_dispatch", event: `{"inputs":{"mode":"party"}}`, in: auto, wantErr: `mode must be auto, fix, resolve, review or forge, got "party"`},
		{name: "explicit forge on a push", eventName: "push", event: `{}`, in: Inputs{Mode: ModeForge}, want: trigger{mode: ModeForge}},
		{name: "explicit forge on dispatch", eventName: "workflow_dispatch", event: `{}`, in: Inputs{Mode: ModeForge}, want: trigger{mode: ModeForge}},
		{name: "explicit fix needs an issue", eventName: "workflow_dispatch", event: `{}`, in: Inputs{Mode: ModeFix}, wantErr: "mode fix needs the issue input"},
		{name: "explicit resolve on a comment without the command", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":8,"body":"thanks","user":{"login":"alice"}},"issue":{"number":4,"pull_request":{}}}`, in: Inputs{Mode: ModeResolve}, nothing: "no /core fix"},
		{name: "explicit resolve on an issue comment", eventName: "issue_comment",
			event: `{"action":"created","comment":{"id":8,"body":"/core fix","user":{"login":"alice"}},"issue":{"number":4}}`, in: Inputs{Mode: ModeResolve}, nothing: "asks for fix, and this step runs only mode resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := detect(tt.eventName, mustEvent(t, tt.event), tt.in)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.nothing != "" {
				assert.Empty(t, got.mode)
				assert.Contains(t, got.nothing, tt.nothing)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

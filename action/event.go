package action

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/coreagent/core/gh"
)

// event is what the Action reads of the event payload.
type event struct {
	Action  string `json:"action"`
	Comment *struct {
		ID   int64  `json:"id"`
		Body string `json:"body"`
		User user   `json:"user"`
	} `json:"comment"`
	Issue *struct {
		Number      int       `json:"number"`
		PullRequest *struct{} `json:"pull_request"`
	} `json:"issue"`
	PullRequest *struct {
		Number int `json:"number"`
	} `json:"pull_request"`
	Label *struct {
		Name string `json:"name"`
	} `json:"label"`
	Sender user           `json:"sender"`
	Inputs map[string]any `json:"inputs"`
}

// user is an account as the event names it; ID is 0 when the payload
// does not say it.
type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
	ID    int64  `json:"id"`
}

func readEvent(path string) (event, error) {
	var ev event
	if path == "" {
		return ev, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ev, fmt.Errorf("read the event (GITHUB_EVENT_PATH): %w", err)
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, fmt.Errorf("read the event (GITHUB_EVENT_PATH %s): %w", path, err)
	}
	return ev, nil
}

// trigger is what the event asks for.
type trigger struct {
	mode        string // fix, resolve, forge; "" for nothing to do
	number      int    // the issue or pull request
	instruction string // from /core fix, or the prompt input
	actor       user   // who asked; empty for schedule and dispatch
	commentID   int64  // the comment that asked, to react to
	nothing     string // why there is nothing to do
}

// needsAuthorization reports whether a person asked (a comment or a label)
// and must be checked.
func (t trigger) needsAuthorization() bool { return t.actor.Login != "" }

// detect turns the event into a trigger. A comment or a label always
// decides by itself (a mode input must then agree with it), so that no
// comment without /core fix ever starts a run; on a schedule or a dispatch,
// a mode input decides, else the event.
func detect(eventName string, ev event, in Inputs) (trigger, error) {
	t, err := fromEvent(eventName, ev, in)
	if err != nil || in.Mode == ModeAuto || eventName == "schedule" || eventName == "workflow_dispatch" {
		return t, err
	}
	switch {
	case t.mode != "" && t.mode != in.Mode:
		return trigger{nothing: fmt.Sprintf("the event asks for %s, and this step runs only mode %s", t.mode, in.Mode)}, nil
	case t.mode == "" && !askedByPerson(eventName):
		return explicit(eventName, ev, in) // e.g. a push: the mode input decides
	case t.mode == "" && in.Mode == ModeReview && ev.PullRequest != nil:
		return explicit(eventName, ev, in) // a review of each push: no one need ask
	}
	return t, nil
}

// askedByPerson reports whether an event is one a person asks with (a
// comment or a label): such an event never runs without the ask.
func askedByPerson(eventName string) bool {
	return eventName == "issue_comment" || eventName == "issues" || strings.HasPrefix(eventName, "pull_request")
}

func fromEvent(eventName string, ev event, in Inputs) (trigger, error) {
	switch eventName {
	case "issue_comment":
		if ev.Action != "created" {
			return trigger{nothing: fmt.Sprintf("an issue_comment %s event: only new comments are read", ev.Action)}, nil
		}
		if ev.Comment == nil || ev.Issue == nil {
			return trigger{}, fmt.Errorf("the issue_comment event has no comment or issue")
		}
		if cmd, ok := gh.FindCommandFor(ev.Comment.Body, in.trigger(), "review"); ok {
			return reviewComment(ev, cmd), nil
		}
		cmd, ok := gh.FindCommandFor(ev.Comment.Body, in.trigger(), "fix")
		if !ok {
			return trigger{nothing: noCommand(ev.Comment.Body, in.trigger())}, nil
		}
		t := trigger{mode: ModeFix, number: ev.Issue.Number, instruction: cmd.Args, actor: ev.Comment.User, commentID: ev.Comment.ID}
		if ev.Issue.PullRequest != nil {
			t.mode = ModeResolve
		}
		return t, nil
	case "issues", "pull_request", "pull_request_target":
		if t, ok := reviewEvent(eventName, ev, in); ok {
			return t, nil
		}
		if ev.Action != "labeled" || ev.Label == nil || ev.Label.Name != in.label() {
			return trigger{nothing: otherLabel(eventName, ev, in.label())}, nil
		}
		if eventName == "issues" && ev.Issue != nil {
			return trigger{mode: ModeFix, number: ev.Issue.Number, actor: ev.Sender}, nil
		}
		if ev.PullRequest != nil {
			return trigger{mode: ModeResolve, number: ev.PullRequest.Number, actor: ev.Sender}, nil
		}
		return trigger{}, fmt.Errorf("the %s event has no issue or pull request", eventName)
	case "schedule":
		if in.Mode != ModeAuto {
			return explicit(eventName, ev, in)
		}
		return trigger{mode: ModeForge}, nil
	case "workflow_dispatch":
		if mode := dispatchInput(ev, "mode"); mode != "" && mode != ModeAuto {
			in.Mode = mode
		}
		if n := dispatchInput(ev, "issue"); n != "" && in.Issue == 0 {
			in.Issue, _ = strconv.Atoi(strings.TrimPrefix(n, "#"))
		}
		if n := dispatchInput(ev, "pull_request"); n != "" && in.PullRequest == 0 {
			in.PullRequest, _ = strconv.Atoi(strings.TrimPrefix(n, "#"))
		}
		switch {
		case in.Mode != ModeAuto:
			return explicit(eventName, ev, in)
		case in.PullRequest != 0:
			in.Mode = ModeResolve
		case in.Issue != 0:
			in.Mode = ModeFix
		default:
			return trigger{nothing: "a workflow_dispatch without mode, issue or pull_request"}, nil
		}
		return explicit(eventName, ev, in)
	}
	return trigger{nothing: fmt.Sprintf("core does nothing on a %s event", eventName)}, nil
}

// Where the example workflows keep the trigger phrase and the label: one
// repository variable each, read by the job's if: and by the inputs.
const (
	phraseVariable = "CORE_TRIGGER_PHRASE"
	labelVariable  = "CORE_LABEL"
)

// noCommand says why a comment starts nothing. A comment that holds the fix
// command for another phrase core knows (/core, @core) than the configured
// one is told both, and what to set.
func noCommand(body, phrase string) string {
	for _, other := range []string{gh.DefaultTrigger, "@core"} {
		if strings.EqualFold(other, phrase) {
			continue
		}
		if _, ok := gh.FindCommandFor(body, other, "fix"); ok {
			return fmt.Sprintf("the comment says %[1]s fix, but this step's trigger phrase is %[2]s: write %[2]s fix, or set the trigger_phrase input to %[1]s (the example workflows read it from the repository variable %[3]s)", other, phrase, phraseVariable)
		}
	}
	return fmt.Sprintf("the comment holds no %s fix command at the start of a line, outside quotes and code (the phrase is the trigger_phrase input; the example workflows read it from the repository variable %s)", phrase, phraseVariable)
}

// otherLabel says why a labeling event starts nothing.
func otherLabel(eventName string, ev event, label string) string {
	if ev.Action != "labeled" || ev.Label == nil {
		return fmt.Sprintf("a %s %s event without the %s label", eventName, ev.Action, label)
	}
	return fmt.Sprintf("a %s %s event without the %s label (it added %s; core's label is the label input, which the example workflows read from the repository variable %s)", eventName, ev.Action, label, ev.Label.Name, labelVariable)
}

// explicit builds the trigger for a mode given as an input.
func explicit(eventName string, ev event, in Inputs) (trigger, error) {
	t := trigger{mode: in.Mode, instruction: strings.TrimSpace(in.Prompt)}
	switch in.Mode {
	case ModeForge:
		return t, nil
	case ModeFix:
		t.number = in.Issue
		if t.number == 0 && ev.Issue != nil {
			t.number = ev.Issue.Number
		}
		if t.number == 0 && t.instruction == "" {
			return t, fmt.Errorf("mode fix needs the issue input (or an issue event), or a prompt")
		}
	case ModeResolve, ModeReview:
		t.number = in.PullRequest
		if t.number == 0 && ev.PullRequest != nil {
			t.number = ev.PullRequest.Number
		}
		if t.number == 0 && ev.Issue != nil && ev.Issue.PullRequest != nil {
			t.number = ev.Issue.Number
		}
		if t.number == 0 {
			return t, fmt.Errorf("mode %s needs the pull_request input (or a pull request event)", in.Mode)
		}
	default:
		return t, fmt.Errorf("mode must be auto, fix, resolve, review or forge, got %q", in.Mode)
	}
	return t, nil
}

func dispatchInput(ev event, name string) string {
	v, ok := ev.Inputs[name]
	if !ok || v == nil {
		return ""
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

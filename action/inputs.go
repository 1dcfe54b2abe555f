// Package action is the GitHub Action's entrypoint (core action): it reads
// the inputs and the event, picks fix, resolve or forge, authorises the
// person who asked, acknowledges them, runs the session, and writes the
// outputs, the step summary and the status comment.
package action

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"
)

// Modes.
const (
	ModeAuto    = "auto"
	ModeFix     = "fix"
	ModeResolve = "resolve"
	ModeForge   = "forge"
)

// FixLabel is the label that asks for a fix like /core fix does.
const FixLabel = "core:fix"

// Inputs are the Action's inputs (action.yml).
type Inputs struct {
	GitHubToken  string
	Mode         string
	Prompt       string
	Issue        int
	PullRequest  int
	Model        string
	InferenceURL string
	APIKey       string
	MaxTurns     int
	Timeout      time.Duration
	Verify       string
	// ToolCalls is how the model sends actions: text, native or auto.
	ToolCalls  string
	ForgeLabel string
	DryRun     bool
	// RunID and StatusCommentID are set by the bot when it dispatches a
	// run: the Action then edits the bot's status comment.
	RunID           string
	StatusCommentID int64
}

// readInputs reads and checks the inputs. A bad input is an error that
// names it.
func readInputs(a *githubactions.Action) (Inputs, error) {
	in := Inputs{
		GitHubToken:  strings.TrimSpace(a.GetInput("github_token")),
		Mode:         strings.ToLower(orDefault(a.GetInput("mode"), ModeAuto)),
		Prompt:       a.GetInput("prompt"),
		Model:        a.GetInput("model"),
		InferenceURL: a.GetInput("inference_url"),
		APIKey:       strings.TrimSpace(a.GetInput("api_key")),
		Verify:       strings.ToLower(orDefault(a.GetInput("verify"), "auto")),
		ForgeLabel:   orDefault(a.GetInput("forge_label"), "forge"),
		ToolCalls:    strings.ToLower(orDefault(a.GetInput("tool_calls"), "text")),
	}
	if in.GitHubToken == "" {
		in.GitHubToken = strings.TrimSpace(a.Getenv("GITHUB_TOKEN"))
	}
	switch in.Mode {
	case ModeAuto, ModeFix, ModeResolve, ModeForge:
	default:
		return in, fmt.Errorf("input mode must be auto, fix, resolve or forge, got %q", in.Mode)
	}
	switch in.Verify {
	case "auto", "off", "build", "test":
	default:
		return in, fmt.Errorf("input verify must be auto, off, build or test, got %q", in.Verify)
	}
	switch in.ToolCalls {
	case "text", "native", "auto":
	default:
		return in, fmt.Errorf("input tool_calls must be text, native or auto, got %q", in.ToolCalls)
	}
	var err error
	if in.Issue, err = intInput(a, "issue"); err != nil {
		return in, err
	}
	if in.PullRequest, err = intInput(a, "pull_request"); err != nil {
		return in, err
	}
	if in.MaxTurns, err = intInput(a, "max_turns"); err != nil {
		return in, err
	}
	if t := strings.TrimSpace(a.GetInput("timeout")); t != "" {
		if in.Timeout, err = time.ParseDuration(t); err != nil || in.Timeout <= 0 {
			return in, fmt.Errorf("input timeout must be a duration such as 45m or 2h, got %q", t)
		}
	}
	in.RunID = strings.TrimSpace(a.GetInput("run_id"))
	if c := strings.TrimSpace(a.GetInput("status_comment_id")); c != "" {
		if in.StatusCommentID, err = strconv.ParseInt(c, 10, 64); err != nil || in.StatusCommentID < 0 {
			return in, fmt.Errorf("input status_comment_id must be a comment id, got %q", c)
		}
	}
	if d := strings.TrimSpace(a.GetInput("dry_run")); d != "" {
		if in.DryRun, err = strconv.ParseBool(d); err != nil {
			return in, fmt.Errorf("input dry_run must be true or false, got %q", d)
		}
	}
	return in, nil
}

func intInput(a *githubactions.Action, name string) (int, error) {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(a.GetInput(name)), "#"))
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("input %s must be a positive number, got %q", name, s)
	}
	return n, nil
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s == "" {
		return def
	}
	return s
}

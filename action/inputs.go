// Package action is the GitHub Action's entrypoint (core action): it reads
// the inputs and the event, picks fix, resolve or forge, authorises the
// person who asked, acknowledges them, runs the session, and writes the
// outputs, the step summary and the status comment.
package action

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/setup"
	"github.com/coreagent/core/status"
)

// Modes.
const (
	ModeAuto    = "auto"
	ModeFix     = setup.KindFix
	ModeResolve = setup.KindResolve
	ModeReview  = setup.KindReview
	ModeForge   = "forge"
)

// Inputs are the Action's inputs (action.yml).
type Inputs struct {
	GitHubToken string
	Mode        string
	Prompt      string
	Issue       int
	PullRequest int
	ForgeLabel  string
	// TriggerPhrase starts a command in a comment (default /core: /core
	// fix); Label asks for a fix when added (default core:fix).
	TriggerPhrase string
	Label         string
	// ReviewOnOpen, with mode auto, reviews a pull request when it is
	// opened, reopened or pushed to (the example workflows pass the
	// repository variable CORE_REVIEW_ON_OPEN).
	ReviewOnOpen bool
	// AllowedBots are the bot accounts whose comments and labels count, by
	// login (dependabot or dependabot[bot]); none by default.
	AllowedBots []string
	// Settings are the run's settings the workflow gave (model,
	// inference_url, api_key, max_turns, timeout, verify, dry_run, the
	// prices and budgets: every setup.Setting with an input), by setting
	// name.
	Settings setup.Values
	// RunID and StatusCommentID are set by the bot when it dispatches a
	// run: the Action then edits the bot's status comment.
	RunID           string
	StatusCommentID int64
	// Actor is set by the bot when it dispatches a run: the login of the
	// person who started it (with /core fix), whose /core comments the
	// run takes, as it takes the commenter's when a comment starts it.
	Actor string
}

// readInputs reads and checks the inputs. A bad input is an error that
// names it.
func readInputs(a *githubactions.Action) (Inputs, error) {
	in := Inputs{
		GitHubToken: strings.TrimSpace(a.GetInput("github_token")),
		Mode:        strings.ToLower(orDefault(a.GetInput("mode"), ModeAuto)),
		Prompt:      a.GetInput("prompt"),
		ForgeLabel:  orDefault(a.GetInput("forge_label"), "forge"),
		Settings:    setup.Values{},

		TriggerPhrase: orDefault(a.GetInput("trigger_phrase"), gh.DefaultTrigger),
		Label:         orDefault(a.GetInput("label"), status.FixLabel),
	}
	if err := gh.CheckTrigger(in.TriggerPhrase); err != nil {
		return in, fmt.Errorf("input trigger_phrase: %w", err)
	}
	for _, b := range strings.FieldsFunc(a.GetInput("allowed_bots"), func(r rune) bool { return r == ',' || r == '\n' || r == ' ' }) {
		in.AllowedBots = append(in.AllowedBots, strings.TrimSpace(b))
	}
	for _, s := range setup.Settings() {
		if s.Input {
			if v := strings.TrimSpace(a.GetInput(s.InputName())); v != "" {
				in.Settings[s.Name] = v
			}
		}
	}
	// verify: auto (the input's default) lets CORE_SESSION_VERIFY decide.
	if strings.EqualFold(in.Settings[setup.Verify], "auto") {
		delete(in.Settings, setup.Verify)
	}
	if err := setup.Check(in.Settings); err != nil {
		return in, setup.Word(err, setup.InputWording)
	}
	if in.GitHubToken == "" {
		in.GitHubToken = strings.TrimSpace(a.Getenv("GITHUB_TOKEN"))
	}
	switch in.Mode {
	case ModeAuto, ModeFix, ModeResolve, ModeReview, ModeForge:
	default:
		return in, fmt.Errorf("input mode must be auto, fix, resolve, review or forge, got %q", in.Mode)
	}
	var err error
	if in.ReviewOnOpen, err = boolInput(a, "review_on_open"); err != nil {
		return in, err
	}
	if in.Issue, err = intInput(a, "issue"); err != nil {
		return in, err
	}
	if in.PullRequest, err = intInput(a, "pull_request"); err != nil {
		return in, err
	}
	in.RunID = strings.TrimSpace(a.GetInput("run_id"))
	in.Actor = strings.TrimPrefix(strings.TrimSpace(a.GetInput("actor")), "@")
	if in.Actor != "" && !loginPattern.MatchString(in.Actor) {
		return in, fmt.Errorf("input actor must be a GitHub login (letters, digits and hyphens), got %q", in.Actor)
	}
	if c := strings.TrimSpace(a.GetInput("status_comment_id")); c != "" {
		if in.StatusCommentID, err = strconv.ParseInt(c, 10, 64); err != nil || in.StatusCommentID < 0 {
			return in, fmt.Errorf("input status_comment_id must be a comment id, got %q", c)
		}
	}
	return in, nil
}

// loginPattern is a GitHub login: a user's, or an App's with [bot].
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$`)

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

// boolInput reads a true/false input; empty is false.
func boolInput(a *githubactions.Action, name string) (bool, error) {
	s := strings.TrimSpace(a.GetInput(name))
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("input %s must be true or false, got %q", name, s)
	}
	return b, nil
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s == "" {
		return def
	}
	return s
}

// allowedBot reports whether a bot account may ask core for work: it is
// named in allowed_bots, with or without its [bot] suffix.
func (in Inputs) allowedBot(login string) bool {
	name := strings.TrimSuffix(strings.ToLower(login), "[bot]")
	for _, b := range in.AllowedBots {
		if strings.TrimSuffix(strings.ToLower(b), "[bot]") == name {
			return true
		}
	}
	return false
}

// trigger is the trigger phrase, /core unless an input says otherwise.
func (in Inputs) trigger() string { return orDefault(in.TriggerPhrase, gh.DefaultTrigger) }

// label is the label that asks for a fix, core:fix unless an input says
// otherwise.
func (in Inputs) label() string { return orDefault(in.Label, status.FixLabel) }

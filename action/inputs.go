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

	"github.com/coreagent/core/gh"
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
	ForgeLabel   string
	DryRun       bool
	// TriggerPhrase starts a command in a comment (default /core: /core
	// fix); Label asks for a fix when added (default core:fix).
	TriggerPhrase string
	Label         string
	// AllowedBots are the bot accounts whose comments and labels count, by
	// login (dependabot or dependabot[bot]); none by default.
	AllowedBots []string
	// Price is what a million prompt and completion tokens cost, for the
	// cost output; nil when not configured.
	Price *[2]float64
	// Checks are the user's checks, one per line: the contract holds the
	// result to them. Ready marks the pull request ready for review when
	// the contract held.
	Checks []string
	Ready  bool
	// AllowWorkflowChanges lets the session write and land workflows.
	AllowWorkflowChanges bool
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

		TriggerPhrase: orDefault(a.GetInput("trigger_phrase"), gh.DefaultTrigger),
		Label:         orDefault(a.GetInput("label"), FixLabel),
	}
	if err := gh.CheckTrigger(in.TriggerPhrase); err != nil {
		return in, fmt.Errorf("input trigger_phrase: %w", err)
	}
	for _, b := range strings.FieldsFunc(a.GetInput("allowed_bots"), func(r rune) bool { return r == ',' || r == '\n' || r == ' ' }) {
		in.AllowedBots = append(in.AllowedBots, strings.TrimSpace(b))
	}
	if p := strings.Fields(strings.ReplaceAll(a.GetInput("price_per_mtok"), ",", " ")); len(p) > 0 {
		var price [2]float64
		ok := len(p) == 2
		for i := 0; ok && i < 2; i++ {
			v, err := strconv.ParseFloat(p[i], 64)
			ok = err == nil && v >= 0
			price[i] = v
		}
		if !ok {
			return in, fmt.Errorf("input price_per_mtok must be two numbers, the price of a million prompt tokens and of a million completion tokens (e.g. \"0.5 1.5\"), got %q", a.GetInput("price_per_mtok"))
		}
		in.Price = &price
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
	in.Checks = lines(a.GetInput("checks"))
	if d := strings.TrimSpace(a.GetInput("ready")); d != "" {
		if in.Ready, err = strconv.ParseBool(d); err != nil {
			return in, fmt.Errorf("input ready must be true or false, got %q", d)
		}
	}
	if d := strings.TrimSpace(a.GetInput("dry_run")); d != "" {
		if in.DryRun, err = strconv.ParseBool(d); err != nil {
			return in, fmt.Errorf("input dry_run must be true or false, got %q", d)
		}
	}
	if w := strings.TrimSpace(a.GetInput("allow_workflow_changes")); w != "" {
		if in.AllowWorkflowChanges, err = strconv.ParseBool(w); err != nil {
			return in, fmt.Errorf("input allow_workflow_changes must be true or false, got %q", w)
		}
	}
	return in, nil
}

// lines splits a multi-line input into its non-blank lines; a line
// starting with # is a comment.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
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

// cost is what the tokens cost at the configured price.
func (in Inputs) cost(prompt, completion int) (float64, bool) {
	if in.Price == nil {
		return 0, false
	}
	return float64(prompt)/1e6*in.Price[0] + float64(completion)/1e6*in.Price[1], true
}

// trigger is the trigger phrase, /core unless an input says otherwise.
func (in Inputs) trigger() string { return orDefault(in.TriggerPhrase, gh.DefaultTrigger) }

// label is the label that asks for a fix, core:fix unless an input says
// otherwise.
func (in Inputs) label() string { return orDefault(in.Label, FixLabel) }

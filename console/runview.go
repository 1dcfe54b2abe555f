package console

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/state"
)

// reportDetail is what the pages read from a session's report.json
// (session.Report) beyond the listed columns; every field may be absent.
type reportDetail struct {
	Kind        string        `json:"kind"`
	Review      *reviewDetail `json:"review"`
	Goal        string        `json:"goal"`
	Summary     string        `json:"summary"`
	FailureKind string        `json:"failure_kind"`
	Error       string        `json:"error"`
	CostUSD     *float64      `json:"cost_usd"`
	Issue       int           `json:"issue"`
	PullRequest int           `json:"pull_request"`
	Branch      string        `json:"branch"`
	Commit      string        `json:"commit"`
	Landed      bool          `json:"landed"`
	DryRun      bool          `json:"dry_run"`
	Signature   string        `json:"signature"`
	CheckRun    string        `json:"check_run"`
	RunURL      string        `json:"run_url"`
	StartedAt   time.Time     `json:"started_at"`
	EndedAt     time.Time     `json:"ended_at"`
	DiffStat    *struct {
		Files      int `json:"files"`
		Insertions int `json:"insertions"`
		Deletions  int `json:"deletions"`
	} `json:"diff_stat"`
	Steps []struct {
		Turn      int           `json:"turn"`
		Tool      string        `json:"tool"`
		Target    string        `json:"target"`
		Duration  time.Duration `json:"duration_ns"`
		Tokens    int           `json:"tokens"`
		Malformed bool          `json:"malformed"`
	} `json:"steps"`
}

// detailOf reads a run's report, once; a run without one (the bot's) or
// with one the console cannot read has an empty detail.
func detailOf(run *Run) *reportDetail {
	if run.detail == nil {
		run.detail = &reportDetail{}
		if len(run.Report) > 2 {
			_ = json.Unmarshal(run.Report, run.detail)
		}
	}
	return run.detail
}

// fill sets the run's fields that come from its report: the goal (the
// prompt or the issue's title, else the first line of the model's
// summary), the failure, the cost, the kind (change or review), a
// review's findings' counts and an Action run's workflow run.
func (run *Run) fill(d *reportDetail) {
	run.Goal = firstOf(clip.Line(d.Goal, 200), clip.Line(firstLine(d.Summary), 200), run.Goal)
	run.FailureKind = firstOf(d.FailureKind, run.FailureKind)
	run.Error = firstOf(d.Error, run.Error)
	if d.CostUSD != nil {
		run.CostUSD = d.CostUSD
	}
	if d.Issue != 0 {
		run.Issue = d.Issue
	}
	if run.Trigger == TriggerAction && web(d.RunURL) {
		// The Action's run names its workflow run (a serve run's page is
		// this console's own, not a workflow's).
		run.WorkflowURL = firstOf(run.WorkflowURL, d.RunURL)
	}
	if len(run.Report) > 2 {
		run.Kind = firstOf(clip.Line(d.Kind, 40), "change")
	}
	run.Findings = reviewOf(d).findingsText()
}

// withBot adds to a reported run what only the bot's record of it knows.
func (run *Run) withBot(b *Run) {
	run.Issue = max(run.Issue, b.Issue)
	run.WorkflowURL = firstOf(run.WorkflowURL, b.WorkflowURL)
	run.Goal = firstOf(run.Goal, b.Goal)
}

// link is one link of a run: to its pull request, issue, branch, commit
// or workflow run. One with no URL names what has no page on GitHub (a
// branch that landed only in a local repository), with a Note saying
// where it is.
type link struct {
	Label, Text, URL, Note string
}

// links are a run's links on GitHub, the ones it has; brief ones (for the
// Runs page) leave out the branch and the commit, and a branch and commit
// that landed only locally are named without a link.
func (c *Console) links(run *Run, d *reportDetail, brief bool) []link {
	var out []link
	repo := c.cfg.WebURL + "/" + run.Repo
	if web(run.PRURL) {
		text := "pull request"
		if d.PullRequest != 0 {
			text = fmt.Sprintf("#%d", d.PullRequest)
		} else if n := tail(run.PRURL); n != "" {
			text = "#" + n
		}
		out = append(out, link{Label: "pull request", Text: text, URL: run.PRURL})
	}
	if run.Issue != 0 {
		out = append(out, link{Label: "issue", Text: fmt.Sprintf("#%d", run.Issue), URL: fmt.Sprintf("%s/issues/%d", repo, run.Issue)})
	}
	if brief || !d.Landed {
		return append(out, c.workflowLink(run)...)
	}
	pushed := onGitHub(run, d)
	if d.Branch != "" && !d.DryRun {
		l := link{Label: "branch", Text: d.Branch, Note: "in the local repository the run landed in; not pushed"}
		if pushed {
			l.URL, l.Note = repo+"/tree/"+escapePath(d.Branch), ""
		}
		out = append(out, l)
	}
	if d.Commit != "" {
		l := link{Label: "commit", Text: clip.Hash(d.Commit)}
		if pushed {
			l.URL = repo + "/commit/" + url.PathEscape(d.Commit)
		}
		out = append(out, l)
	}
	return append(out, c.workflowLink(run)...)
}

// onGitHub reports whether what the run landed is on GitHub, by what its
// report says: a pull request it opened or pushed to, GitHub's word on the
// landed commit's signature, or a check run on it. A local landing has
// none of these, and its branch has no page there.
func onGitHub(run *Run, d *reportDetail) bool {
	return web(run.PRURL) || d.Signature != "" || web(d.CheckRun)
}

// workflowLink is the run's workflow run, when it has one.
func (c *Console) workflowLink(run *Run) []link {
	if !web(run.WorkflowURL) {
		return nil
	}
	return []link{{Label: "workflow run", Text: "#" + tail(run.WorkflowURL), URL: run.WorkflowURL}}
}

// stepView is one turn on a run's timeline; Width is its bar, in percent
// of the longest turn.
type stepView struct {
	Turn          int
	Tool, Target  string
	Duration      time.Duration
	Tokens, Width int
	Malformed     bool
	At, Seconds   string // At: the clock time the turn began
}

// timeline lays the report's turns out in order, each at the clock time
// it began: its turn event's time (when it ended, from the events the
// console holds) less its duration, else where the turn before ended.
func timeline(d *reportDetail, ended map[int]time.Time) []stepView {
	var longest, at time.Duration
	for _, s := range d.Steps {
		longest = max(longest, s.Duration)
	}
	out := make([]stepView, 0, len(d.Steps))
	for _, s := range d.Steps {
		width := 1
		if longest > 0 {
			width = max(1, int(100*s.Duration/longest))
		}
		began := d.StartedAt.Add(at)
		if end, ok := ended[s.Turn]; ok {
			began = end.Add(-s.Duration)
		}
		out = append(out, stepView{
			Turn: s.Turn, Tool: firstOf(s.Tool, "(no action)"), Target: s.Target, Duration: s.Duration,
			Tokens: s.Tokens, Width: width, Malformed: s.Malformed,
			At: timeOfDay(began), Seconds: seconds(s.Duration),
		})
		at += s.Duration
	}
	return out
}

// diffView says how much a run changed: "3 files changed, +40 −12".
func diffView(d *reportDetail) string {
	ds := d.DiffStat
	if ds == nil {
		return ""
	}
	files := "files"
	if ds.Files == 1 {
		files = "file"
	}
	return fmt.Sprintf("%d %s changed, +%d −%d", ds.Files, files, ds.Insertions, ds.Deletions)
}

// tone is the colour a status or verdict is shown in; the word itself is
// always shown too.
func tone(word string) string {
	switch word {
	case "done", "succeeded", "completed", "held":
		return "ok"
	case "failed", "broken", "refused":
		return "bad"
	case "partial", "budget_exhausted", "cancelled", "none", "unjudged", StatusLost:
		return "warn"
	case "running", "queued", "pending", "starting", "active", "idle", "claimed":
		return "busy"
	}
	return "plain"
}

// money shows a cost; nil (no price set) is "", never $0.
func money(c *float64) string {
	if c == nil {
		return ""
	}
	// Four decimals, as the report, the summary and the Action's output
	// say it (budget.CostText): one figure wherever a run is shown.
	return fmt.Sprintf("$%.4f", *c)
}

// timeOfDay shows a time of day to the second, in UTC ("12:04:31 UTC"); day
// the date it falls on.
func timeOfDay(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("15:04:05 UTC")
}

func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// budgetWhy is what a budget-exhausted run's error says of its budget,
// without the command that resumes it (the page offers the top-up).
func budgetWhy(err string) string {
	why, _, _ := strings.Cut(err, "; core session resume")
	return strings.TrimSuffix(strings.TrimSpace(why), ".")
}

// when shows a start time to the minute, in UTC.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func seconds(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func web(u string) bool {
	return strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")
}

// escapePath escapes each segment of a branch name for a URL path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// tail is a URL's last path segment: a pull request's or a workflow run's
// number.
func tail(u string) string {
	return u[strings.LastIndex(u, "/")+1:]
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// Ending is how a run ended, or that it has not: one of the Ending*
// keys, the words the pages show for it, and the tone (a CSS class of
// the badge) they are shown in. Every page and chart that sorts runs by
// how they ended uses EndingOf, so a run reads the same everywhere.
type Ending struct {
	Key  string `json:"key"`  // EndingLive, EndingHeld, …: stable, a chart's series and a CSS class
	Word string `json:"word"` // what a person reads: "completed, contract held"
	Tone string `json:"tone"` // ok, warn, busy, plain or bad; only a failed run is bad
}

// The endings, in the order the charts stack them.
const (
	EndingHeld      = "held"      // completed, and the contract held
	EndingCompleted = "completed" // completed (or done) with any other verdict, or none
	EndingExhausted = "exhausted" // the budget ran out; the work landed as a draft
	EndingStopped   = "stopped"   // cancelled or stopped by a person
	EndingPartial   = "partial"   // a limit was hit; the work is kept
	EndingLost      = "lost"      // its machine stopped reporting (StatusLost)
	EndingFailed    = "failed"
	EndingLive      = "live" // has not ended: queued, starting, working or idle
)

// Endings lists the keys in the order the charts stack them.
var Endings = []string{EndingHeld, EndingCompleted, EndingExhausted, EndingStopped, EndingPartial, EndingLost, EndingFailed, EndingLive}

// EndingOf says how run ended. It reads the statuses of every entry
// point: a session's (completed, budget_exhausted, …), the bot's (done,
// running, …) and the console's own (lost).
func EndingOf(run *Run) Ending {
	switch run.Status {
	case "completed", "done", "succeeded":
		if run.Verdict == "held" {
			return Ending{EndingHeld, "completed, contract held", "ok"}
		}
		return Ending{EndingCompleted, "completed", "ok"}
	case "budget_exhausted":
		return Ending{EndingExhausted, "budget exhausted", "warn"}
	case "cancelled":
		if detailOf(run).Landed {
			return Ending{EndingStopped, "stopped, work landed", "plain"}
		}
		return Ending{EndingStopped, "cancelled", "plain"}
	case "partial":
		return Ending{EndingPartial, "partial", "warn"}
	case StatusLost:
		return Ending{EndingLost, "lost", "warn"}
	case "failed", "refused":
		return Ending{EndingFailed, "failed", "bad"}
	}
	return Ending{EndingLive, liveWord(run.Status), "busy"}
}

// liveWord is the one word for a run that has not ended (state.Status's
// Word, which the terminal, serve, the bot and the Action show too): the
// bot's own states read as the session's.
func liveWord(status string) string {
	switch status {
	case "running":
		return state.Active.Word()
	case "queued", "":
		return state.Pending.Word()
	}
	return state.Status(status).Word()
}

// runProgress is what the run page shows moving while a run lives, for
// its script (GET /api/session-runs/{id}/events): the goal, the counts,
// the cost ("" with no price) and the ending's badge.
type runProgress struct {
	Goal   string `json:"goal"`
	Turns  int    `json:"turns"`
	Tokens int    `json:"tokens"`
	Cost   string `json:"cost"`
	Ending Ending `json:"ending"`
}

func progressOf(run *Run) runProgress {
	return runProgress{Goal: run.Goal, Turns: run.Turns, Tokens: run.Tokens, Cost: money(run.CostUSD), Ending: EndingOf(run)}
}

package session

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Step is one turn of a run, for the report's table of turns.
type Step struct {
	Turn     int           `json:"turn"`
	Tool     string        `json:"tool"`
	Target   string        `json:"target,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Tokens   int           `json:"tokens"`
	// Malformed is set for a reply that held no valid action.
	Malformed bool `json:"malformed,omitempty"`
}

// Report is what a run did: report.json, written when a run ends, whatever
// the ending.
type Report struct {
	ID          string         `json:"id"`
	Repo        string         `json:"repo"`
	Status      Status         `json:"status"`
	FailureKind FailureKind    `json:"failure_kind,omitempty"`
	Error       string         `json:"error,omitempty"`
	Summary     string         `json:"summary,omitempty"`
	Base        string         `json:"base"`
	StartCommit string         `json:"start_commit"`
	Branch      string         `json:"branch"`
	Commit      string         `json:"commit,omitempty"`
	PRURL       string         `json:"pr_url,omitempty"`
	PullRequest int            `json:"pull_request,omitempty"`
	Landed      bool           `json:"landed"`
	DryRun      bool           `json:"dry_run,omitempty"`
	Turns       int            `json:"turns"`
	Usage       Usage          `json:"usage"`
	Verify      string         `json:"verify"`
	Sandboxed   bool           `json:"sandboxed"`
	Verified    []Verification `json:"verified"`
	Unverified  bool           `json:"unverified"`
	Steps       []Step         `json:"steps"`
	// Instructions are the repository instruction files the model was
	// given, e.g. ["AGENTS.md", "pkg/AGENTS.md"].
	Instructions []string  `json:"instructions,omitempty"`
	StartedAt    time.Time `json:"started_at"`
	EndedAt      time.Time `json:"ended_at"`
}

// UnverifiedWarning is what a run says when it verified nothing.
const UnverifiedWarning = "warning: the agent ran no verification commands — this patch is UNVERIFIED"

// WriteSummary prints the end-of-run summary for people: status, turns,
// tokens, branch, and what was verified or the UNVERIFIED warning.
func (r *Report) WriteSummary(w io.Writer) {
	status := string(r.Status)
	if r.FailureKind != "" {
		status += " (" + string(r.FailureKind) + ")"
	}
	fmt.Fprintf(w, "session %s: %s\n", r.ID, status)
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	if r.Summary != "" {
		fmt.Fprintf(w, "summary: %s\n", oneLine(r.Summary, 300))
	}
	fmt.Fprintf(w, "turns: %d, tokens: %d (prompt %d, completion %d), time: %s\n",
		r.Turns, r.Usage.TotalTokens, r.Usage.PromptTokens, r.Usage.CompletionTokens,
		r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond))
	if len(r.Instructions) > 0 {
		fmt.Fprintf(w, "instructions: %s\n", strings.Join(r.Instructions, ", "))
	}
	switch {
	case r.PRURL != "":
		fmt.Fprintf(w, "pull request: %s\n", r.PRURL)
	case r.Landed:
		fmt.Fprintf(w, "branch: %s (commit %s)\n", r.Branch, short(r.Commit))
	case r.DryRun:
		fmt.Fprintf(w, "branch: none (dry run: nothing landed)\n")
	default:
		fmt.Fprintf(w, "branch: %s (not landed)\n", r.Branch)
	}
	if len(r.Verified) == 0 {
		fmt.Fprintln(w, UnverifiedWarning)
		return
	}
	fmt.Fprintln(w, "verified:")
	for _, v := range r.Verified {
		where := "on the host"
		if v.Sandboxed {
			where = "sandboxed"
		}
		fmt.Fprintf(w, "  %s → exit %d (%s)\n", v.Command, v.ExitCode, where)
	}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

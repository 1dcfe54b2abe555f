// Package status owns every name core leaves on GitHub for itself or for
// its other half to find: the hidden markers in comments and pull request
// bodies, the core:fix and core:review labels, the core-session/ branch prefix, the
// workflow run-name, and the one status comment per run with its format.
// Everything that writes or reads one of them (the engine, the Action, the
// bot, the forger) uses this package, so each is defined once.
package status

import (
	"regexp"
	"strconv"
	"strings"
)

// FixLabel is the label that asks for a fix like /core fix does.
const FixLabel = "core:fix"

// ReviewLabel is the label that asks for a review of a pull request like
// /core review does.
const ReviewLabel = "core:review"

// BranchPrefix starts the branch a session lands on when none is given:
// core-session/<session-id>. The bot links pull requests from such
// branches back to their run.
const BranchPrefix = "core-session/"

// SessionBranch is the branch a session lands on by default.
func SessionBranch(sessionID string) string { return BranchPrefix + sessionID }

// The markers: hidden HTML comments, each a prefix, a value and the end.
const (
	statusPrefix      = "<!-- core:status:"
	issuePrefix       = "<!-- core:issue:"
	sessionPrefix     = "<!-- core:session:"
	workflowRunPrefix = "<!-- core:workflow-run:"
	costPrefix        = "<!-- core:cost:"
	notesMarker       = "<!-- core:notes -->"
	reviewPrefix      = "<!-- core:review:"
	findingPrefix     = "<!-- core:finding:"
	markerEnd         = " -->"
)

// Marker marks a run's status comment, so a re-run (and the other writer)
// edits it instead of posting another: <!-- core:status:<run-id> -->.
func Marker(runID string) string { return statusPrefix + runID + markerEnd }

// IssueMarker marks the pull requests core opens for an issue, so a second
// run for the same issue finds the first one's and the bot links it back.
func IssueMarker(issue int) string { return issuePrefix + strconv.Itoa(issue) + markerEnd }

// SessionMarker marks everything core posts for a session.
func SessionMarker(sessionID string) string { return sessionPrefix + sessionID + markerEnd }

// ReviewMarker marks core's review of a pull request's head commit, so a
// second review run on the same head edits that review instead of posting
// another: <!-- core:review:<head-sha> -->.
func ReviewMarker(head string) string { return reviewPrefix + head + markerEnd }

// FindingMarker marks core's line comment on a review's finding, so a
// re-run finds the finding's comment again, on this head or an older one:
// <!-- core:finding:<key> -->, key the finding's 12 hex digits.
func FindingMarker(key string) string { return findingPrefix + key + markerEnd }

// FindingIn reads the key of the finding marker that ends body (its last
// line); "" when it has none. A marker anywhere else (quoted in output the
// comment shows) is not the comment's.
func FindingIn(body string) string {
	body = strings.TrimRight(body, "\n")
	last := body[strings.LastIndexByte(body, '\n')+1:]
	m := findingRe.FindStringSubmatch(last)
	if m == nil {
		return ""
	}
	return m[1]
}

// WorkflowRunMarker names, in a status comment, the workflow run doing the
// work: the Action writes it, the bot reads it to cancel the run on
// /core stop.
func WorkflowRunMarker(id int64) string {
	return workflowRunPrefix + strconv.FormatInt(id, 10) + markerEnd
}

var (
	markerRe      = markerPattern(statusPrefix, `[0-9A-Za-z._-]+`)
	issueRe       = markerPattern(issuePrefix, `\d+`)
	workflowRunRe = markerPattern(workflowRunPrefix, `\d+`)
	costRe        = markerPattern(costPrefix, `\d+(?:\.\d+)?`)
	findingRe     = regexp.MustCompile("^" + regexp.QuoteMeta(findingPrefix) + "([0-9a-f]{12})" + regexp.QuoteMeta(markerEnd) + "$")
)

// CostMarker says, in a status comment, what the run cost in dollars (the
// figure the Action's cost output has, "0.1234"): the Action writes it at
// the end, the bot reads it into its record of the run.
func CostMarker(cost string) string { return costPrefix + cost + markerEnd }

// CostIn reads the cost of a cost marker; ok is false when there is none
// (the run's cost is unknown).
func CostIn(body string) (cost float64, ok bool) {
	m := costRe.FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	c, err := strconv.ParseFloat(m[1], 64)
	return c, err == nil
}

// markerPattern matches a marker, its value captured.
func markerPattern(prefix, value string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(prefix) + "(" + value + ")" + regexp.QuoteMeta(markerEnd))
}

// IssueIn reads the issue number of an issue marker in body; 0 when none.
func IssueIn(body string) int {
	m := issueRe.FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// WorkflowRunIn reads the workflow run of a workflow-run marker; 0 when
// none.
func WorkflowRunIn(body string) int64 {
	m := workflowRunRe.FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// RunNameTemplate is the run-name of core's workflow
// (.github/workflows/core.yml): it carries the mode and the bot's run id,
// so the bot recognises the workflow_run that ends a run it dispatched.
const RunNameTemplate = "core ${{ inputs.mode }} ${{ inputs.run_id }}"

var runNameRe = regexp.MustCompile(`^core (fix|resolve|review) ([0-9a-z-]+)$`)

// RunName is what RunNameTemplate expands to.
func RunName(mode, runID string) string { return "core " + mode + " " + runID }

// RunIDInName reads the run id from a workflow run's title; "" when the
// title is not a RunName.
func RunIDInName(title string) string {
	m := runNameRe.FindStringSubmatch(title)
	if m == nil {
		return ""
	}
	return m[2]
}

// Package review is what a review run (core review, /core review, the
// core:review label, the Action's mode: review) does differently from a
// fix: the model is offered only the read tools, a call to a write tool is
// answered with why not, and the run's result is not a commit but one
// pull request review per head (or, locally, the same text printed):
// the model's summary and the contract's table of the checks the harness
// ran on the base and on the head.
package review

import "github.com/coreagent/core/session/tools"

// Kind is a review run's kind in its record and report.json.
const Kind = "review"

// Refusal answers a review's model that calls a write tool.
const Refusal = "this is a review: it changes no code; say what you found in done"

// withheld are the tools a review does not offer: those that write files,
// file issues, or run commands in the workspace (run_shell is withheld
// until reproductions run in a scratch copy of the head).
var withheld = []string{"write_file", "edit_file", "run_shell", "file_issue"}

// Tools is set without the write tools: they are not offered, and a call
// to one is answered with Refusal.
func Tools(set *tools.Set) *tools.Set { return set.Without(Refusal, withheld...) }

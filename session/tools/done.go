package tools

import (
	"context"
	"strings"
)

type done struct{}

func (done) Name() string { return "done" }

func (done) Doc() string {
	return `done: finish the task, saying what was done.
  tool: done
  summary: Fixed the off-by-one in pager.Next and added a test for the last page.
Call it once the work is complete and verified; the session then ends.`
}

func (t done) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	summary, err := args.String("summary")
	if err != nil {
		return fail(t.Name(), err)
	}
	summary = strings.TrimSpace(summary)
	if summary == "" {
		return fail(t.Name(), &ArgError{Arg: "summary", Msg: "must say what was done"})
	}
	return Result{Output: "done", Done: true, Summary: summary}, nil
}

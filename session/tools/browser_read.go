package tools

import (
	"context"
	"strings"
)

type browserRead struct{}

func (browserRead) Name() string { return "browser_read" }

func (browserRead) Doc() string {
	return `browser_read: the open page's visible text, or with a selector one element's
text (a form field's value).
  tool: browser_read
  selector: "#result"
selector is optional. Long text is cut like any other output.`
}

func (t browserRead) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	sel, err := args.OptionalString("selector", "")
	if err != nil {
		return fail(t.Name(), err)
	}
	sel = strings.TrimSpace(sel)
	what := sel
	if what == "" {
		what = "the page's text"
	}
	if why, err := browserGate(ctx, env, t.Name(), "read "+what, false); why != "" || err != nil {
		return Result{Output: why, Target: sel}, err
	}
	page, text, err := env.Browser.Read(ctx, sel)
	out := pageLine(page) + "\n" + text
	if strings.TrimSpace(text) == "" {
		out = pageLine(page) + "\n(no visible text)"
	}
	return browserResult(env, t.Name(), what, out, err)
}

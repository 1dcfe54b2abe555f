package tools

import (
	"context"
	"strings"
)

type browserClick struct{}

func (browserClick) Name() string { return "browser_click" }

func (browserClick) Doc() string {
	return `browser_click: click the first element a CSS selector matches on the open page.
  tool: browser_click
  selector: "#submit"
The reply says where the page is after the click; read it with browser_read.`
}

func (t browserClick) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	sel, err := args.String("selector")
	if err != nil {
		return fail(t.Name(), err)
	}
	if sel = strings.TrimSpace(sel); sel == "" {
		return fail(t.Name(), &ArgError{Arg: "selector", Msg: "must not be empty"})
	}
	if why, err := browserGate(ctx, env, t.Name(), sel, false); why != "" || err != nil {
		return Result{Output: why, Target: sel}, err
	}
	page, err := env.Browser.Click(ctx, sel)
	return browserResult(env, t.Name(), sel, "clicked "+sel+"; the page is "+pageLine(page), err)
}

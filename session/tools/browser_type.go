package tools

import (
	"context"
	"fmt"
	"strings"
)

type browserType struct{}

func (browserType) Name() string { return "browser_type" }

func (browserType) Doc() string {
	return `browser_type: type text into the first element a CSS selector matches (after
what it holds).
  tool: browser_type
  selector: "input[name=q]"
  text: hello`
}

func (t browserType) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	sel, err := args.String("selector")
	if err != nil {
		return fail(t.Name(), err)
	}
	text, err := args.String("text")
	if err != nil {
		return fail(t.Name(), err)
	}
	if sel = strings.TrimSpace(sel); sel == "" {
		return fail(t.Name(), &ArgError{Arg: "selector", Msg: "must not be empty"})
	}
	if why, err := browserGate(ctx, env, t.Name(), fmt.Sprintf("type %q into %s", text, sel), false); why != "" || err != nil {
		return Result{Output: why, Target: sel}, err
	}
	err = env.Browser.Type(ctx, sel, text)
	return browserResult(env, t.Name(), sel, fmt.Sprintf("typed %d characters into %s", len([]rune(text)), sel), err)
}

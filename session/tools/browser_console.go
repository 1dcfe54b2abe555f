package tools

import (
	"context"
	"fmt"
	"strings"
)

type browserConsole struct{}

func (browserConsole) Name() string { return "browser_console" }

func (browserConsole) Doc() string {
	return `browser_console: the console messages and uncaught errors of the open page
since the last call.
  tool: browser_console`
}

func (t browserConsole) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	if why, err := browserGate(ctx, env, t.Name(), "read the page's console", false); why != "" || err != nil {
		return Result{Output: why}, err
	}
	lines, dropped := env.Browser.Console()
	var out strings.Builder
	if dropped > 0 {
		fmt.Fprintf(&out, "(%d older messages dropped)\n", dropped)
	}
	if len(lines) == 0 {
		out.WriteString("no console messages since the last look")
	}
	out.WriteString(strings.Join(lines, "\n"))
	return browserResult(env, t.Name(), "", out.String(), nil)
}

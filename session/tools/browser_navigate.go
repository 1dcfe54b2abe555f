package tools

import (
	"context"
	"fmt"
	"strings"
)

type browserNavigate struct{}

func (browserNavigate) Name() string { return "browser_navigate" }

func (browserNavigate) Doc() string {
	return `browser_navigate: open a URL in the run's browser and wait for it to load.
  tool: browser_navigate
  url: http://localhost:8000/
Only http://localhost, 127.0.0.1 and [::1] (any port) open, unless the user
allowed other hosts; start your server in the background with run_shell
first. Requests the page makes to other hosts are blocked and listed.`
}

func (t browserNavigate) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	url, err := args.String("url")
	if err != nil {
		return fail(t.Name(), err)
	}
	url = strings.TrimSpace(url)
	if url == "" {
		return fail(t.Name(), &ArgError{Arg: "url", Msg: "must not be empty"})
	}
	if why, err := browserGate(ctx, env, t.Name(), url, true); why != "" || err != nil {
		return Result{Output: why, Target: url}, err
	}
	page, err := env.Browser.Navigate(ctx, url)
	out := ""
	if err == nil {
		out = "loaded " + pageLine(page)
		if page.Status != 0 {
			out += fmt.Sprintf(", HTTP status %d", page.Status)
		}
	}
	return browserResult(env, t.Name(), url, out, err)
}

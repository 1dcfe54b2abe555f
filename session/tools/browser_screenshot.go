package tools

import (
	"context"
	"fmt"
)

type browserScreenshot struct{}

func (browserScreenshot) Name() string { return "browser_screenshot" }

func (browserScreenshot) Doc() string {
	return `browser_screenshot: save a PNG of what the open page shows with the session's
files (the user sees it in the report).
  tool: browser_screenshot`
}

func (t browserScreenshot) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	if why, err := browserGate(ctx, env, t.Name(), "save a screenshot of the page", false); why != "" || err != nil {
		return Result{Output: why}, err
	}
	shot, err := env.Browser.Screenshot(ctx)
	out := fmt.Sprintf("saved %s (%dx%d pixels, %d bytes) with the session's files: %s", shot.Name, shot.Width, shot.Height, shot.Bytes, shot.Path)
	return browserResult(env, t.Name(), shot.Name, out, err)
}

package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coreagent/core/session/browser"
)

// DeclinedBrowser is what the model sees when the human did not approve a
// browser action.
const DeclinedBrowser = "declined: the human operator did not approve this browser action"

// DeclinedRemote is what an unattended run's model sees for a navigation
// when remote pages are allowed: each one needs a person.
const DeclinedRemote = "declined: with --browser-allow-remote every navigation needs a person's approval, and this run has no one to ask; only pages already open can be used"

// BrowserTools are the tools that drive the run's browser, offered with
// --browser: navigate, click, type, read, screenshot and console.
func BrowserTools() []Tool {
	return []Tool{browserNavigate{}, browserClick{}, browserType{}, browserRead{}, browserScreenshot{}, browserConsole{}}
}

// WithBrowser returns the standard tool set with the browser tools before
// done.
func WithBrowser() *Set { return Default().With(BrowserTools()...) }

// browserGate lets a browser action run, or says why not: no browser in
// this run; an attended run asks the human for every action; an
// unattended run acts alone on this machine's loopback, and declines every
// navigation when remote pages are allowed (navigation set).
func browserGate(ctx context.Context, env *Env, tool, action string, navigation bool) (string, error) {
	if env.Browser == nil {
		return fmt.Sprintf("%s: this run has no browser (core starts one with --browser)", tool), nil
	}
	if !env.Attended {
		if navigation && env.BrowserRemote {
			return DeclinedRemote, nil
		}
		return "", nil
	}
	approver := env.Approver
	if approver == nil {
		approver = DenyApprover{}
	}
	ok, err := approver.Approve(ctx, tool+": "+action)
	if err != nil {
		return "", fmt.Errorf("%s: ask for approval: %w", tool, err)
	}
	if !ok {
		return DeclinedBrowser, nil
	}
	return "", nil
}

// browserResult turns an action's outcome into the model's observation:
// what the model can act on (no element, a page that did not load, a
// timeout) is an observation, the rest (the browser died or would not
// start, a cancelled run) a Go error. Every answer ends with the requests
// the browser blocked since the last one.
func browserResult(env *Env, tool, target, out string, err error) (Result, error) {
	var ae *browser.ActionError
	switch {
	case errors.As(err, &ae):
		out = fmt.Sprintf("%s: %s", tool, ae.Msg)
	case err != nil:
		return Result{}, fmt.Errorf("%s: %w", tool, err)
	}
	return Result{Output: out + blockedNote(env.Browser), Target: target}, nil
}

// blockedNote tells the model what the browser refused to load since it
// last looked.
func blockedNote(b *browser.Browser) string {
	list, dropped := b.Blocked()
	if len(list) == 0 {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "\ncore blocked %d request(s) that would have left this machine", len(list)+dropped)
	if !b.AllowRemote() {
		s.WriteString(" (only localhost, 127.0.0.1 and [::1] may be loaded)")
	}
	s.WriteString(":")
	for _, bl := range list {
		s.WriteString("\n  " + bl.String())
	}
	if dropped > 0 {
		fmt.Fprintf(&s, "\n  ... and %d more", dropped)
	}
	return s.String()
}

// pageLine describes where the tab is.
func pageLine(p browser.Page) string {
	s := p.URL
	if p.Title != "" {
		s += fmt.Sprintf(" (title %q)", p.Title)
	}
	return s
}

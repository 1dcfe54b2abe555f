package browser

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Local reports whether a URL stays on this machine's loopback: http or
// https (or ws, wss) to localhost, 127.0.0.1 or [::1], any port.
func Local(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss":
	default:
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// allowed reports whether the page may load raw: what never leaves the
// browser (data:, blob:, about:), local URLs, and with remote allowed any
// http or https URL.
func allowed(raw string, remote bool) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "data", "blob", "about":
		return true
	case "http", "https", "ws", "wss":
		return remote || Local(raw)
	}
	return false
}

// Blocked is a request the browser refused to send.
type Blocked struct {
	URL string
	// Kind is what asked for it: a document (a navigation, a redirect, an
	// iframe, a window), a fetch, an XHR, a script, an image ...
	Kind     string
	Redirect bool
}

func (b Blocked) String() string {
	kind := strings.ToLower(b.Kind)
	if kind == "" {
		kind = "request"
	}
	if b.Redirect {
		kind += " (after a redirect)"
	}
	return fmt.Sprintf("%s %s", kind, b.URL)
}

// maxBlocked is how many blocked requests are kept between two looks.
const maxBlocked = 100

// blockList collects what the guard blocked until the next action asks.
type blockList struct {
	mu      sync.Mutex
	list    []Blocked
	dropped int
}

func (l *blockList) add(b Blocked) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) >= maxBlocked {
		l.dropped++
		return
	}
	l.list = append(l.list, b)
}

// take returns what was blocked since the last take, and how many more
// were not kept.
func (l *blockList) take() ([]Blocked, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	list, dropped := l.list, l.dropped
	l.list, l.dropped = nil, 0
	return list, dropped
}

// guard intercepts every request of every page of the browser (the
// Fetch domain, enabled on the browser itself, so that iframes, workers
// and windows the page opens are covered too) and fails those that leave
// this machine's loopback unless remote loads are allowed. Each one
// blocked is kept for the model and written to the console log.
func (b *Browser) guard(tab context.Context) error {
	events := chromedp.BrowserEvents(tab, fetch.RequestPaused)
	if _, err := chromedp.CallBrowser(tab, fetch.Enable, fetch.EnableParams{}); err != nil {
		return err
	}
	go serve(events, maxDeciding, func(ev fetch.EventRequestPaused) { b.decide(tab, ev) })
	return nil
}

// maxDeciding bounds how many paused requests the guard answers at once.
const maxDeciding = 16

// serve hands each event to decide until the events end (the tab's
// context ends them), with at most limit decisions running at once: a
// page that fires thousands of requests waits for the browser's answers
// (chromedp queues the events meanwhile) instead of growing a goroutine
// for each. It returns once the last decision has returned.
func serve[E any](events iter.Seq2[E, error], limit int, decide func(E)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, limit)
	for ev, err := range events {
		if err != nil {
			return
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			decide(ev)
		})
	}
}

func (b *Browser) decide(tab context.Context, ev fetch.EventRequestPaused) {
	raw := ""
	if ev.Request != nil {
		raw = ev.Request.URL + ev.Request.URLFragment
	}
	if allowed(raw, b.cfg.AllowRemote) {
		_, _ = chromedp.CallBrowser(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	bl := Blocked{URL: raw, Kind: string(ev.ResourceType), Redirect: ev.RedirectedRequestID != ""}
	b.blocked.add(bl)
	b.log.note("core blocked "+bl.String()+": only localhost, 127.0.0.1 and [::1] may be loaded", false)
	_, _ = chromedp.CallBrowser(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
}

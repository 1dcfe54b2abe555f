package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"github.com/chromedp/chromedp"
)

// ActionError is an action that failed in a way the model can do something
// about: no element matches, the page did not load, the action ran past
// its timeout.
type ActionError struct{ Msg string }

func (e *ActionError) Error() string { return e.Msg }

// ErrGone is wrapped by the error of an action whose browser died.
var ErrGone = errors.New("the browser died")

// do runs one action on the tab, starting the browser first if need be,
// bounded by the action timeout and by ctx.
func (b *Browser) do(ctx context.Context, action func(tctx context.Context) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(ctx); err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(b.ctx, b.cfg.Timeout)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	err := action(tctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case b.gone():
		return fmt.Errorf("%w: %w", ErrGone, err)
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		return &ActionError{Msg: fmt.Sprintf("it did not finish within %s (--browser-timeout)", b.cfg.Timeout)}
	}
	var ae *ActionError
	if errors.As(err, &ae) {
		return ae
	}
	var he *hostError
	if errors.As(err, &he) {
		return he.err
	}
	return &ActionError{Msg: err.Error()}
}

// hostError is a failure of this machine during an action (a disk that
// fails), which the model cannot fix.
type hostError struct{ err error }

func (e *hostError) Error() string { return e.err.Error() }
func (e *hostError) Unwrap() error { return e.err }

// gone reports whether the connection to the browser was lost.
func (b *Browser) gone() bool {
	c := chromedp.FromContext(b.ctx)
	if c == nil || c.Browser == nil {
		return true
	}
	select {
	case <-c.Browser.LostConnection:
		return true
	default:
		return false
	}
}

// Page is where the tab is after an action.
type Page struct {
	URL    string
	Title  string
	Status int64 // the HTTP status of the document, when it was loaded
}

func (b *Browser) where(tctx context.Context) Page {
	var p Page
	p.URL, _ = chromedp.Run(tctx, chromedp.Location())
	p.Title, _ = chromedp.Run(tctx, chromedp.Title())
	return p
}

// Navigate loads url in the tab and waits for it to load. A URL the
// browser may not load is refused before anything is sent.
func (b *Browser) Navigate(ctx context.Context, url string) (Page, error) {
	if !allowed(url, b.cfg.AllowRemote) {
		if b.cfg.AllowRemote {
			return Page{}, &ActionError{Msg: fmt.Sprintf("cannot open %q: only http and https URLs", url)}
		}
		return Page{}, &ActionError{Msg: fmt.Sprintf("cannot open %q: only http://localhost, 127.0.0.1 and [::1] (any port) may be opened; start the server in the background with run_shell and open it there", url)}
	}
	var page Page
	err := b.do(ctx, func(tctx context.Context) error {
		resp, err := chromedp.Run(tctx, chromedp.NavigateResponse(url))
		var le *chromedp.LoadError
		if errors.As(err, &le) {
			return &ActionError{Msg: fmt.Sprintf("the page did not load: %s", le.ErrorText)}
		}
		if err != nil {
			return err
		}
		page = b.where(tctx)
		if resp != nil {
			page.Status = resp.Status
		}
		return nil
	})
	return page, err
}

// Click clicks the first element the CSS selector matches, and reports
// where the tab is after it.
func (b *Browser) Click(ctx context.Context, selector string) (Page, error) {
	var page Page
	err := b.do(ctx, func(tctx context.Context) error {
		if err := b.present(tctx, selector); err != nil {
			return err
		}
		if err := chromedp.Do(tctx, chromedp.Click(chromedp.CSS(selector))); err != nil {
			return err
		}
		page = b.where(tctx)
		return nil
	})
	return page, err
}

// Type types text into the first element the CSS selector matches, after
// what it holds.
func (b *Browser) Type(ctx context.Context, selector, text string) error {
	return b.do(ctx, func(tctx context.Context) error {
		if err := b.present(tctx, selector); err != nil {
			return err
		}
		return chromedp.Do(tctx, chromedp.SendKeys(chromedp.CSS(selector), text))
	})
}

// present fails at once when nothing matches the selector now, rather
// than wait for the timeout.
func (b *Browser) present(tctx context.Context, selector string) error {
	sel, _ := json.Marshal(selector)
	n, err := chromedp.Run(tctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%s).length`, sel)))
	if err != nil {
		return &ActionError{Msg: fmt.Sprintf("selector %q: %v", selector, err)}
	}
	if n == 0 {
		return &ActionError{Msg: fmt.Sprintf("no element matches %q on %s", selector, b.where(tctx).URL)}
	}
	return nil
}

// Read returns the page's visible text, or with a selector the first
// matching element's (a form field's value).
func (b *Browser) Read(ctx context.Context, selector string) (Page, string, error) {
	var page Page
	var text string
	err := b.do(ctx, func(tctx context.Context) error {
		expr := `document.body ? document.body.innerText : ""`
		if selector != "" {
			sel, _ := json.Marshal(selector)
			expr = fmt.Sprintf(`(() => { const el = document.querySelector(%s); if (!el) return null;
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return el.value;
  return el.innerText; })()`, sel)
		}
		got, err := chromedp.Run(tctx, chromedp.Evaluate[*string](expr))
		if err != nil {
			return err
		}
		page = b.where(tctx)
		if got == nil {
			return &ActionError{Msg: fmt.Sprintf("no element matches %q on %s", selector, page.URL)}
		}
		text = *got
		return nil
	})
	return page, text, err
}

// Shot is a screenshot saved with the session's files.
type Shot struct {
	Name          string // in Config.Files
	Path          string
	Bytes         int
	Width, Height int
}

// Screenshot saves a PNG of what the tab shows as screenshot-N.png.
func (b *Browser) Screenshot(ctx context.Context) (Shot, error) {
	var shot Shot
	err := b.do(ctx, func(tctx context.Context) error {
		data, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
		if err != nil {
			return err
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("the browser's screenshot is not a PNG: %w", err)
		}
		shot = Shot{Bytes: len(data), Width: cfg.Width, Height: cfg.Height}
		if shot.Name, shot.Path, err = b.save(data); err != nil {
			return &hostError{fmt.Errorf("save screenshot: %w", err)}
		}
		b.files = append(b.files, shot.Name)
		return nil
	})
	return shot, err
}

// Console returns the console messages and uncaught errors since the last
// call, and how many older ones were dropped.
func (b *Browser) Console() ([]string, int) { return b.log.take() }

// Blocked returns the requests blocked since the last call, and how many
// more were not kept.
func (b *Browser) Blocked() ([]Blocked, int) { return b.blocked.take() }

// save writes a screenshot as the first screenshot-N.png not taken yet
// (an earlier run of the session may have left some).
func (b *Browser) save(data []byte) (name, path string, err error) {
	for n := len(b.files) + 1; ; n++ {
		name = fmt.Sprintf("screenshot-%d.png", n)
		path = filepath.Join(b.cfg.Files, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", "", err
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return name, path, werr
	}
}

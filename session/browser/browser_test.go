package browser_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	testbrowser "github.com/coreagent/core/internal/testkit/browser"
	"github.com/coreagent/core/session/browser"
)

// site serves the pages the tests drive, on 127.0.0.1.
func site(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html><head><title>test</title></head><body>"+body+"</body></html>")
		}
	}
	mux.Handle("/", page(`<h1>Greeter</h1>
<input id="name"><button id="go">Greet</button><p id="out"></p>
<script>
document.getElementById("go").addEventListener("click", () => {
  const n = document.getElementById("name").value;
  document.getElementById("out").textContent = "Hello, " + n + "!";
  console.log("greeted", n);
});
console.warn("page ready");
</script>`))
	mux.Handle("/throws", page(`<p>x</p><script>null.boom();</script>`))
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://remote.test/landing", http.StatusFound)
	})
	mux.Handle("/fetches", page(`<p id="r">waiting</p><script>
fetch("http://remote.test/api").then(() => { document.getElementById("r").textContent = "fetched"; })
  .catch(e => { document.getElementById("r").textContent = "failed: " + e; });
</script>`))
	mux.Handle("/frames", page(`<iframe src="http://frames.test/frame"></iframe>`))
	mux.Handle("/opens", page(`<button id="open" onclick='window.open("http://popup.test/popup")'>open</button>`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// start makes a browser the test closes, and checks at the end that none
// of its processes is left.
func start(t *testing.T, cfg browser.Config) *browser.Browser {
	t.Helper()
	cfg.Exec = testbrowser.Exec(t)
	dir := t.TempDir()
	cfg.DataDir, cfg.Files = filepath.Join(dir, "profile"), filepath.Join(dir, "files")
	marker := "CORE_BROWSER_TEST=" + strings.ReplaceAll(t.Name(), "/", "_") + fmt.Sprint(time.Now().UnixNano())
	host := browser.HostLauncher{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, marker}}
	b := browser.New(host, cfg)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if left := testbrowser.Survivors(marker); len(left) > 0 {
			t.Errorf("browser processes left after Close: %v", left)
		}
	})
	return b
}

func TestBrowserDrivesAPage(t *testing.T) {
	srv := site(t)
	b := start(t, browser.Config{})
	ctx := t.Context()
	page, err := b.Navigate(ctx, srv.URL+"/")
	if err != nil {
		t.Fatalf("navigate: %v", err)
	}
	if page.Status != 200 || page.Title != "test" {
		t.Errorf("page = %+v, want status 200, title test", page)
	}
	if err := b.Type(ctx, "#name", "Ada"); err != nil {
		t.Fatalf("type: %v", err)
	}
	if _, err := b.Click(ctx, "#go"); err != nil {
		t.Fatalf("click: %v", err)
	}
	_, text, err := b.Read(ctx, "#out")
	if err != nil || text != "Hello, Ada!" {
		t.Errorf("read #out = %q, %v; want Hello, Ada!", text, err)
	}
	_, value, err := b.Read(ctx, "#name")
	if err != nil || value != "Ada" {
		t.Errorf("read #name = %q, %v; want the field's value Ada", value, err)
	}
	_, all, err := b.Read(ctx, "")
	if err != nil || !strings.Contains(all, "Greeter") || !strings.Contains(all, "Hello, Ada!") {
		t.Errorf("read page = %q, %v", all, err)
	}
	shot, err := b.Screenshot(ctx)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	data, err := os.ReadFile(shot.Path)
	if err != nil || len(data) != shot.Bytes || !strings.HasPrefix(string(data), "\x89PNG") || shot.Width == 0 {
		t.Errorf("screenshot %+v: %d bytes on disk, %v", shot, len(data), err)
	}
	msgs := waitConsole(t, b, "greeted Ada")
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "warning: page ready") }) {
		t.Errorf("console = %q, want the page's warning", msgs)
	}
	if more, _ := b.Console(); len(more) != 0 {
		t.Errorf("console again = %q, want nothing new", more)
	}

	_, err = b.Click(ctx, "#missing")
	var ae *browser.ActionError
	if !errors.As(err, &ae) || !strings.Contains(ae.Msg, `no element matches "#missing"`) {
		t.Errorf("click on a missing element: %v", err)
	}
	if _, err := b.Navigate(ctx, srv.URL+"/throws"); err != nil {
		t.Fatal(err)
	}
	waitConsole(t, b, "exception: Uncaught TypeError")
	if got := b.Files(); !slices.Equal(got, []string{"screenshot-1.png", browser.ConsoleFile}) {
		t.Errorf("files = %q", got)
	}
}

// waitConsole reads the console until a message holds want.
func waitConsole(t *testing.T, b *browser.Browser, want string) []string {
	t.Helper()
	var all []string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		msgs, _ := b.Console()
		all = append(all, msgs...)
		if slices.ContainsFunc(all, func(m string) bool { return strings.Contains(m, want) }) {
			return all
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("console never showed %q within 20s; it showed %q", want, all)
	return nil
}

func TestBrowserBlocksOtherHosts(t *testing.T) {
	srv := site(t)
	b := start(t, browser.Config{})
	ctx := t.Context()
	tests := []struct {
		name, path, blocked string
		click               string
		loadFails           bool
	}{
		{name: "redirect", path: "/away", blocked: "http://remote.test/landing", loadFails: true},
		{name: "fetch", path: "/fetches", blocked: "http://remote.test/api"},
		{name: "iframe", path: "/frames", blocked: "http://frames.test/frame"},
		{name: "window.open", path: "/opens", blocked: "http://popup.test/popup", click: "#open"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.Navigate(ctx, srv.URL+tc.path)
			if tc.loadFails != (err != nil) {
				t.Errorf("navigate: %v", err)
			}
			if tc.click != "" {
				if _, err := b.Click(ctx, tc.click); err != nil {
					t.Fatalf("click: %v", err)
				}
			}
			var got []browser.Blocked
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) && !slices.ContainsFunc(got, func(b browser.Blocked) bool { return b.URL == tc.blocked }) {
				more, _ := b.Blocked()
				got = append(got, more...)
				time.Sleep(50 * time.Millisecond)
			}
			if !slices.ContainsFunc(got, func(b browser.Blocked) bool { return b.URL == tc.blocked }) {
				t.Errorf("blocked = %+v, want %s among them", got, tc.blocked)
			}
		})
	}
	if _, err := b.Navigate(ctx, "http://example.com/"); err == nil || !strings.Contains(err.Error(), "only http://localhost") {
		t.Errorf("navigate to another host: %v", err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "chromium")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, exec, path, want, err string
	}{
		{name: "found on path", path: dir, want: exe},
		{name: "none on path", path: t.TempDir(), err: "apt-get install chromium"},
		{name: "named", exec: "chromium", path: dir, want: exe},
		{name: "named, missing", exec: "nothere", path: dir, err: `"nothere" is not found: install Chromium (Debian, Ubuntu: apt-get install chromium) or name the binary with --browser-exec`},
		{name: "not executable", exec: filepath.Join(dir, "plain"), err: "not an executable file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := browser.Find(tc.exec, tc.path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("Find = %q, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Find = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// Package browser gives tests a real headless Chromium through chromedp,
// for driving core's pages as a person would.
package browser

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// candidates are the names Debian and others give Chromium.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

// New starts a headless Chromium for the test and returns a chromedp
// context; the browser is closed when the test ends. Without a Chromium the
// test is skipped, unless CORE_REQUIRE_CHROMIUM=1 (as in CI), which turns
// the skip into a failure. Every action should still be bounded by the
// context's deadline: timeout caps the whole browser session.
func New(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path := ""
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CORE_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("CORE_REQUIRE_CHROMIUM=1 but no Chromium is installed (apt-get install chromium)")
		}
		t.Skip("no Chromium here (apt-get install chromium); CORE_REQUIRE_CHROMIUM=1 makes this a failure")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 800),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its own sandbox.
		opts = append(opts, chromedp.NoSandbox)
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancelTimeout()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	return bctx
}

// ArtifactsVar names the directory where Screenshot writes; CI sets it to
// keep the screenshots with the test's output.
const ArtifactsVar = "CORE_TEST_ARTIFACTS"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Screenshot saves a full-page PNG of what the browser shows now, as
// <test name>/<name>.png under $CORE_TEST_ARTIFACTS (else under the
// test's temporary directory), logs its path and returns it.
func Screenshot(ctx context.Context, t *testing.T, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := os.Getenv(ArtifactsVar)
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, unsafeName.ReplaceAllString(t.Name(), "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, unsafeName.ReplaceAllString(name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot %s: %s", name, path)
	return path
}

// Exec finds the Chromium binary for a test, skipping the test without one
// unless CORE_REQUIRE_CHROMIUM=1, which turns the skip into a failure.
func Exec(t *testing.T) string {
	t.Helper()
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CORE_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("CORE_REQUIRE_CHROMIUM=1 but no Chromium is installed (apt-get install chromium)")
	}
	t.Skip("no Chromium here (apt-get install chromium); CORE_REQUIRE_CHROMIUM=1 makes this a failure")
	return ""
}

// Survivors lists the live processes (zombies aside) whose environment
// holds marker, a NAME=value a test gave the browser it started: what of
// that browser is still running.
func Survivors(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), []byte("\x00"+marker+"\x00")) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The state follows the command's closing parenthesis.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

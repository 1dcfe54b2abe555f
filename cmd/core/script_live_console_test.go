package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit"
)

type modelGateKey struct{}

// modelGates are the held replies' gates of a script, by name.
type modelGates map[string]chan struct{}

func gatesOf(ts *testscript.TestScript) modelGates {
	g, _ := ts.Value(modelGateKey{}).(modelGates)
	if g == nil {
		ts.Fatalf("no model gates: the script's setup makes them")
	}
	return g
}

// model-release NAME: let the reply held as hold=NAME (see model-serve)
// go.
func cmdModelRelease(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: model-release NAME")
	}
	ch, ok := gatesOf(ts)[args[0]]
	if !ok {
		ts.Fatalf("model-release: no reply is held as %s", args[0])
	}
	close(ch)
}

// console-send LOGIN RUN ACTION [TEXT]: LOGIN signs in to the console
// (the App's OAuth web flow on the testkit GitHub) and, on run RUN's page,
// sends ACTION (message, interrupt, stop) with TEXT. The console's answer
// goes to console-send.out; it must be a success (with !, a refusal).
func cmdConsoleSend(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: console-send LOGIN RUN ACTION [TEXT]")
	}
	login, run, action := args[0], args[1], args[2]
	text := ""
	if len(args) == 4 {
		text = args[3]
	}
	base := ts.Getenv("CORE_CONSOLE_URL")
	jar, err := cookiejar.New(nil)
	ts.Check(err)
	hc := &http.Client{Jar: jar, Timeout: testkit.Patience}
	appsOf(ts).SignIn(login)
	page := fetch(ts, hc, base+"/login")
	if !strings.Contains(page, login) {
		ts.Fatalf("console-send: %s is not signed in after /login", login)
	}
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(fetch(ts, hc, base+"/runs/"+run))
	if m == nil {
		ts.Fatalf("console-send: the page of run %s has no form", run)
	}
	req, err := http.NewRequest(http.MethodPost, base+"/runs/"+url.PathEscape(run)+"/control",
		strings.NewReader(url.Values{"csrf": {m[1]}, "action": {action}, "text": {text}}.Encode()))
	ts.Check(err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs("console-send.out"), body, 0o644))
	ok := resp.StatusCode == http.StatusCreated
	if ok == neg {
		ts.Fatalf("console-send: the console answered %d: %s", resp.StatusCode, body)
	}
}

func fetch(ts *testscript.TestScript, hc *http.Client, u string) string {
	resp, err := hc.Get(u)
	ts.Check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ts.Check(err)
	return string(b)
}

// console-wait-control RUN STATE: wait (testkit.Patience at most) until
// run RUN's newest control on the console is STATE (queued, delivered,
// acknowledged, rejected).
func cmdConsoleWaitControl(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: console-wait-control RUN STATE")
	}
	sc := consoleOf(ts)
	consoleWait(ts, "console-wait-control", fmt.Sprintf("run %s's newest control to be %s", args[0], args[1]), "none", func(ctx context.Context) (string, bool) {
		cs, err := sc.store.Controls(ctx, args[0])
		if err != nil || len(cs) == 0 {
			return "", false
		}
		last := cs[len(cs)-1].State
		return last, last == args[1]
	})
}

// consoleWait asks look every 50ms, for testkit.Patience at most, until it
// says yes; a failure names what it waited for and what it last saw.
func consoleWait(ts *testscript.TestScript, cmd, what, none string, look func(ctx context.Context) (seen string, ok bool)) {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Patience)
	defer cancel()
	last := none
	for {
		seen, ok := look(ctx)
		if ok {
			return
		}
		if seen != "" {
			last = seen
		}
		select {
		case <-ctx.Done():
			ts.Fatalf("%s: waited %s for %s; it is %s", cmd, testkit.Patience, what, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// console-events RUN FILE: write run RUN's events as the console holds
// them, a line each as its page shows them, then its controls (kind,
// sender, state, note).
func cmdConsoleEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: console-events RUN FILE")
	}
	sc := consoleOf(ts)
	ctx := context.Background()
	events, err := sc.store.Events(ctx, args[0], -1, 100000)
	ts.Check(err)
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "event %d %s\n", e.Seq, e.Line)
	}
	cs, err := sc.store.Controls(ctx, args[0])
	ts.Check(err)
	for _, c := range cs {
		fmt.Fprintf(&b, "control %s from=%s state=%s note=%s\n", c.Kind, c.From, c.State, c.Note)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// console-wait-run RUN STATUS: wait (testkit.Patience at most) until the
// console holds run RUN with STATUS (its live status, from its events).
func cmdConsoleWaitRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: console-wait-run RUN STATUS")
	}
	sc := consoleOf(ts)
	consoleWait(ts, "console-wait-run", fmt.Sprintf("run %s to be %s on the console", args[0], args[1]), "not on the console", func(ctx context.Context) (string, bool) {
		run, err := sc.store.GetRun(ctx, args[0])
		if err != nil {
			return "", false
		}
		return run.Status, run.Status == args[1]
	})
}

// bg-ends WHAT...: wait (testkit.Patience at most) until every command
// started in the background since the last wait has ended; wait NAME then
// takes its output. Past Patience it sends them SIGQUIT (a Go program
// writes its goroutines to its stderr, which the failure shows) and fails
// naming WHAT it waited for: testscript's own wait waits for ever.
func cmdBgEnds(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: bg-ends WHAT...")
	}
	what := strings.Join(args, " ")
	cmds := ts.BackgroundCmds()
	if len(cmds) == 0 {
		ts.Fatalf("bg-ends: nothing runs in the background to wait for (%s)", what)
	}
	deadline := time.NewTimer(testkit.Patience)
	defer deadline.Stop()
	for _, c := range cmds {
		for !errors.Is(c.Process.Signal(syscall.Signal(0)), os.ErrProcessDone) {
			select {
			case <-deadline.C:
				for _, c := range cmds {
					_ = c.Process.Signal(syscall.SIGQUIT)
				}
				ts.Fatalf("bg-ends: waited %s for %s (%s); sent SIGQUIT", testkit.Patience, what, strings.Join(c.Args, " "))
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

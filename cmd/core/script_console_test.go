package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rs/zerolog"

	"github.com/coreagent/core/console"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
)

type consoleKey struct{}

// scriptConsole is the console a script serves, and the App's key.
type scriptConsole struct {
	pem   []byte
	store *console.SQL
}

func consoleOf(ts *testscript.TestScript) *scriptConsole {
	c, _ := ts.Value(consoleKey{}).(*scriptConsole)
	return c
}

// console-serve ORG: serve the real console of ORG on a free port, on a
// SQLite store under $WORK, with the App (github-app) installed on ORG as
// installation 7; CORE_CONSOLE_URL points at it and INSTALL_TOKEN holds an
// installation token of the App on ORG (mint it after github-repo, so it
// covers the repositories).
func cmdConsoleServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: console-serve ORG")
	}
	g, sc := githubOf(ts), consoleOf(ts)
	if sc.pem == nil {
		ts.Fatalf("console-serve: run github-app first")
	}
	apps := appsOf(ts)
	ts.Check(apps.AddInstallation(scriptAppID, 7, args[0]))
	tok, err := apps.InstallationToken(7)
	ts.Check(err)
	store, err := console.Open(context.Background(), filepath.Join(ts.MkAbs("console"), "console.db"))
	ts.Check(err)
	id, secret, err := apps.AppOAuth(scriptAppID)
	ts.Check(err)
	api := g.APIURL()
	cc := githubapp.NewClientCreator(api+"/", g.URL+"/api/graphql", scriptAppID, sc.pem)
	c, err := console.New(console.Config{
		Store: store, Org: args[0], AppID: scriptAppID, ClientID: id, ClientSecret: secret,
		APIURL: api, WebURL: g.URL, App: console.NewApp(cc), Logger: zerolog.Nop(),
	})
	ts.Check(err)
	srv := httptest.NewServer(c)
	ts.Defer(func() { srv.Close(); store.Close() })
	sc.store = store
	ts.Setenv("CORE_CONSOLE_URL", srv.URL)
	ts.Setenv("INSTALL_TOKEN", tok)
}

// console-runs FILE: write the console's runs, a line each: session id,
// repository, status, actor, trigger (and a cost line when the report has
// one: "cost ID $0.1234"); then its audit log's report lines.
func cmdConsoleRuns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: console-runs FILE")
	}
	sc := consoleOf(ts)
	if sc.store == nil {
		ts.Fatalf("console-runs: run console-serve first")
	}
	ctx := context.Background()
	runs, err := sc.store.ListRuns(ctx, console.RunFilter{})
	ts.Check(err)
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, "run %s %s %s actor=%s trigger=%s\n", r.SessionID, r.Repo, r.Status, r.Actor, r.Trigger)
		if r.CostUSD != nil {
			fmt.Fprintf(&b, "cost %s $%.4f\n", r.SessionID, *r.CostUSD)
		}
	}
	log, err := sc.store.AuditLog(ctx, 100)
	ts.Check(err)
	for _, e := range log {
		if e.Action == "report" {
			fmt.Fprintf(&b, "audit %s %s %s\n", e.Actor, e.Target, e.Reason)
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// console-commands LOGIN FILE: write the instructions queued for LOGIN, a
// line each: id, repository, state, result status, session, error.
func cmdConsoleCommands(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: console-commands LOGIN FILE")
	}
	sc := consoleOf(ts)
	if sc.store == nil {
		ts.Fatalf("console-commands: run console-serve first")
	}
	cmds, err := sc.store.Commands(context.Background(), args[0], 100)
	ts.Check(err)
	var b strings.Builder
	for _, c := range cmds {
		fmt.Fprintf(&b, "command %d %s %s", c.ID, c.Repo, c.State)
		if r := c.Result; r != nil {
			fmt.Fprintf(&b, " result=%s session=%s pr=%s contract=%t error=%q", r.Status, r.SessionID, r.PRURL, len(r.Contract) > 0, r.Error)
		}
		b.WriteString("\n")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// model-wait N: wait until the last model server has received N requests
// (testkit.Patience at most).
func cmdModelWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: model-wait N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	servers, _ := ts.Value(modelServerKey{}).(*[]*llm.ModelServer)
	if len(*servers) == 0 {
		ts.Fatalf("model-wait: no model server")
	}
	srv := (*servers)[len(*servers)-1]
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Patience)
	defer cancel()
	if err := srv.WaitRequests(ctx, n); err != nil {
		ts.Fatalf("model-wait: waited %s for the model's request %d; it has had %d", testkit.Patience, n, len(srv.Calls()))
	}
}

// audit-rewrite FILE LINE OLD NEW: replace OLD with NEW in line LINE of
// serve's audit trail FILE and recompute the "prev" of every line after
// it (SHA-256, hex, of the line before), as someone covering their tracks
// would: the trail's own chain holds again.
func cmdAuditRewrite(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: audit-rewrite FILE LINE OLD NEW")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	b, err := os.ReadFile(path)
	ts.Check(err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if n < 1 || n > len(lines) || !strings.Contains(lines[n-1], args[2]) {
		ts.Fatalf("audit-rewrite: line %d of %s does not hold %q", n, args[0], args[2])
	}
	lines[n-1] = strings.Replace(lines[n-1], args[2], args[3], 1)
	for i := n; i < len(lines); i++ {
		var e map[string]any
		ts.Check(json.Unmarshal([]byte(lines[i]), &e))
		sum := sha256.Sum256([]byte(lines[i-1]))
		old := fmt.Sprintf(`"prev":%q`, e["prev"])
		if !strings.Contains(lines[i], old) {
			ts.Fatalf("audit-rewrite: line %d has no %s", i+1, old)
		}
		lines[i] = strings.Replace(lines[i], old, fmt.Sprintf(`"prev":%q`, hex.EncodeToString(sum[:])), 1)
	}
	ts.Check(os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
}

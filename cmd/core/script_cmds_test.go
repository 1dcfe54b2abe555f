package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session"
)

// scriptCmds are the commands the scripts under testdata/script add to
// testscript's own.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"model-serve":          cmdModelServe,
		"model-requests":       cmdModelRequests,
		"gitrepo":              cmdGitRepo,
		"env-file":             cmdEnvFile,
		"session-id":           cmdSessionID,
		"perms":                cmdPerms,
		"github-serve":         cmdGitHubServe,
		"github-repo":          cmdGitHubRepo,
		"github-issue":         cmdGitHubIssue,
		"github-state":         cmdGitHubState,
		"gh-event":             cmdGHEvent,
		"github-perm":          cmdGitHubPerm,
		"github-comment":       cmdGitHubComment,
		"github-pr":            cmdGitHubPR,
		"github-var":           cmdGitHubVar,
		"github-issues":        cmdGitHubIssues,
		"github-reviews":       cmdGitHubReviews,
		"github-requests":      cmdGitHubRequests,
		"github-token":         cmdGitHubToken,
		"github-checks":        cmdGitHubChecks,
		"github-app":           cmdGitHubApp,
		"github-device":        cmdGitHubDevice,
		"github-contract-run":  cmdGitHubContractRun,
		"github-force-push":    cmdGitHubForcePush,
		"perms-file":           cmdPermsFile,
		"console-serve":        cmdConsoleServe,
		"console-runs":         cmdConsoleRuns,
		"console-commands":     cmdConsoleCommands,
		"audit-rewrite":        cmdAuditRewrite,
		"model-wait":           cmdModelWait,
		"session-wait":         cmdSessionWait,
		"json-doc":             cmdJSONDoc,
		"model-release":        cmdModelRelease,
		"console-send":         cmdConsoleSend,
		"console-wait-control": cmdConsoleWaitControl,
		"console-events":       cmdConsoleEvents,
		"console-wait-run":     cmdConsoleWaitRun,
		"bg-ends":              cmdBgEnds,
	}
}

type modelServerKey struct{}

// model-serve SCRIPT [discover] [hold=N]...: serve the scripted model in
// SCRIPT on a free port; it sets CORE_SESSION_INFERENCE_URL, or with
// discover leaves discovery to find it among the candidates of
// CORE_SESSION_DISCOVER. hold=N holds reply N (from 1) until
// model-release N.
func cmdModelServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: model-serve SCRIPT [discover] [hold=N]...")
	}
	replies, err := llm.ParseScript(ts.ReadFile(args[0]))
	ts.Check(err)
	discover := false
	for _, a := range args[1:] {
		// hold=N: reply N (from 1) waits for model-release N.
		if n, ok := strings.CutPrefix(a, "hold="); ok {
			i, err := strconv.Atoi(n)
			if err != nil || i < 1 || i > len(replies) {
				ts.Fatalf("model-serve: hold=%s names no reply of %s", n, args[0])
			}
			gate := make(chan struct{})
			gatesOf(ts)[n] = gate
			replies[i-1] = replies[i-1].Until(gate)
			continue
		}
		if a != "discover" {
			ts.Fatalf("usage: model-serve SCRIPT [discover] [hold=N]...")
		}
		discover = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := llm.ServeModel(ctx, "127.0.0.1:0", replies)
	if err != nil {
		cancel()
		ts.Fatalf("model-serve: %v", err)
	}
	ts.Defer(func() { cancel(); srv.Close() })
	servers, _ := ts.Value(modelServerKey{}).(*[]*llm.ModelServer)
	*servers = append(*servers, srv)
	if !discover {
		ts.Setenv("CORE_SESSION_INFERENCE_URL", srv.URL)
	} else {
		ts.Setenv("CORE_SESSION_INFERENCE_URL", "")
		// A closed port first: discovery passes over it to the server.
		ts.Setenv("CORE_SESSION_DISCOVER", "http://127.0.0.1:9,"+srv.URL)
	}
}

// model-requests FILE: write what the last model server was asked: a line
// per request (with the tools it offered), then its messages as role:
// content, JSON-quoted, with a tool message's call id after its role and
// an assistant message's tool calls after its content.
func cmdModelRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: model-requests FILE")
	}
	servers, _ := ts.Value(modelServerKey{}).(*[]*llm.ModelServer)
	if len(*servers) == 0 {
		ts.Fatalf("model-requests: no model server")
	}
	srv := (*servers)[len(*servers)-1]
	var b strings.Builder
	for i, req := range srv.Requests() {
		fmt.Fprintf(&b, "request %d model=%s", i+1, req.Model)
		for j, tool := range req.Tools {
			sep := ","
			if j == 0 {
				sep = " tools="
			}
			fmt.Fprintf(&b, "%s%s", sep, tool.Function.Name)
		}
		if req.MaxTokens > 0 {
			fmt.Fprintf(&b, " max_tokens=%d", req.MaxTokens)
		}
		b.WriteString("\n")
		for _, m := range req.Messages {
			q, _ := json.Marshal(m.Content)
			role := m.Role
			if m.ToolCallID != "" {
				role += "(" + m.ToolCallID + ")"
			}
			fmt.Fprintf(&b, "  %s: %s", role, q)
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, " call(%s %s %s)", c.ID, c.Function.Name, c.Function.Arguments)
			}
			b.WriteString("\n")
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// gitrepo DIR: make DIR (with the files already in it) a git repository
// with one commit on main.
func cmdGitRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitrepo DIR")
	}
	dir := ts.MkAbs(args[0])
	for _, a := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial"},
	} {
		cmd := exec.Command("git", a...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			ts.Fatalf("git %s: %v\n%s", a[0], err, out)
		}
	}
}

// env-file VAR FILE: set VAR to the content of FILE (a key's text, as an
// Action input holding a secret would).
func cmdEnvFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: env-file VAR FILE")
	}
	ts.Setenv(args[0], ts.ReadFile(args[1]))
}

// session-id VAR: set VAR to the id of the newest session.
func cmdSessionID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: session-id VAR")
	}
	store, err := session.OpenStore(ts.Getenv("CORE_HOME"))
	ts.Check(err)
	recs, err := store.List()
	ts.Check(err)
	if len(recs) == 0 {
		ts.Fatalf("session-id: no sessions")
	}
	ts.Setenv(args[0], recs[0].ID)
}

// perms DIR DIRMODE FILEMODE: every directory under DIR has DIRMODE and
// every file FILEMODE (octal).
func cmdPerms(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: perms DIR DIRMODE FILEMODE")
	}
	dirMode, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	fileMode, err := strconv.ParseUint(args[2], 8, 32)
	ts.Check(err)
	n := 0
	ts.Check(filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(fileMode)
		if d.IsDir() {
			want = fs.FileMode(dirMode)
		}
		if fi.Mode().Perm() != want {
			ts.Fatalf("%s has mode %o, want %o", p, fi.Mode().Perm(), want)
		}
		n++
		return nil
	}))
	ts.Logf("perms: %d entries checked", n)
}

// json-doc FILE: FILE holds exactly one JSON document (and white space).
func cmdJSONDoc(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: json-doc FILE")
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, more := dec.Token(); more != io.EOF {
			err = fmt.Errorf("more after the first JSON document (%v)", more)
		}
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s is not one JSON document: %v", args[0], err)
	case err == nil && neg:
		ts.Fatalf("%s is one JSON document", args[0])
	}
}

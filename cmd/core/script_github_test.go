package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit"
)

type githubKey struct{}

// scriptToken is the token scripts authenticate with; scripts check that
// it appears nowhere.
const scriptToken = "ghs_ScriptSeededToken0123456789"

func githubOf(ts *testscript.TestScript) *testkit.GitHub {
	p, _ := ts.Value(githubKey{}).(**testkit.GitHub)
	if p == nil || *p == nil {
		ts.Fatalf("no GitHub: run github-serve first")
	}
	return *p
}

// github-serve: start the testkit GitHub, with the token for core-bot, and
// point GITHUB_API_URL and GITHUB_TOKEN at it; TOKEN holds the token.
func cmdGitHubServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: github-serve")
	}
	ctx, cancel := context.WithCancel(context.Background())
	g, err := testkit.ServeGitHub(ctx, "127.0.0.1:0")
	if err != nil {
		cancel()
		ts.Fatalf("github-serve: %v", err)
	}
	ts.Defer(func() { cancel(); g.Close() })
	g.AddToken(scriptToken, "core-bot")
	p, _ := ts.Value(githubKey{}).(**testkit.GitHub)
	*p = g
	ts.Setenv("GITHUB_API_URL", g.APIURL())
	ts.Setenv("GITHUB_TOKEN", scriptToken)
	ts.Setenv("TOKEN", scriptToken)
}

// github-repo OWNER/NAME DIR: a repository holding the files under DIR,
// which core-bot may write to.
func cmdGitHubRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: github-repo OWNER/NAME DIR")
	}
	g := githubOf(ts)
	owner, name, _ := strings.Cut(args[0], "/")
	files := map[string]string{}
	root := ts.MkAbs(args[1])
	ts.Check(filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	_, err := g.AddRepo(context.Background(), owner, name, files)
	ts.Check(err)
	ts.Check(g.SetPermission(owner, name, "core-bot", "write"))
}

// github-issue OWNER/NAME FILE: an issue whose title is FILE's first line
// and body the rest.
func cmdGitHubIssue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: github-issue OWNER/NAME FILE")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	title, body, _ := strings.Cut(ts.ReadFile(args[1]), "\n")
	n, err := githubOf(ts).AddIssue(owner, name, testkit.Issue{Title: title, Body: body})
	ts.Check(err)
	ts.Logf("issue #%d", n)
}

// github-state OWNER/NAME FILE: write the pull requests and their comments
// to FILE, for grep.
func cmdGitHubState(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: github-state OWNER/NAME FILE")
	}
	g := githubOf(ts)
	owner, name, _ := strings.Cut(args[0], "/")
	var b strings.Builder
	for _, p := range g.Pulls(owner, name) {
		fmt.Fprintf(&b, "pull #%d head=%s base=%s draft=%s state=%s\ntitle: %s\nbody:\n%s\n", p.Number, p.Head, p.Base, strconv.FormatBool(p.Draft), p.State, p.Title, p.Body)
		for _, c := range g.Comments(owner, name, p.Number) {
			fmt.Fprintf(&b, "comment by %s:\n%s\n", c.User, c.Body)
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
)

type githubKey struct{}

// appsKey holds the App side (ghapps) of the testkit GitHub.
type appsKey struct{}

// scriptToken is the token scripts authenticate with; scripts check that
// it appears nowhere.
const scriptToken = "ghs_ScriptSeededToken0123456789"

func githubOf(ts *testscript.TestScript) *ghfake.GitHub {
	p, _ := ts.Value(githubKey{}).(**ghfake.GitHub)
	if p == nil || *p == nil {
		ts.Fatalf("no GitHub: run github-serve first")
	}
	return *p
}

func appsOf(ts *testscript.TestScript) *ghapps.Apps {
	p, _ := ts.Value(appsKey{}).(**ghapps.Apps)
	if p == nil || *p == nil {
		ts.Fatalf("no GitHub: run github-serve first")
	}
	return *p
}

// github-serve: start the testkit GitHub, with its App side and the token
// for core-bot, and point GITHUB_API_URL and GITHUB_TOKEN at it; TOKEN
// holds the token.
func cmdGitHubServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: github-serve")
	}
	ctx, cancel := context.WithCancel(context.Background())
	g, err := ghfake.ServeGitHub(ctx, "127.0.0.1:0")
	if err != nil {
		cancel()
		ts.Fatalf("github-serve: %v", err)
	}
	ts.Defer(func() { cancel(); g.Close() })
	g.AddToken(scriptToken, "core-bot")
	p, _ := ts.Value(githubKey{}).(**ghfake.GitHub)
	*p = g
	if a, _ := ts.Value(appsKey{}).(**ghapps.Apps); a != nil {
		*a = ghapps.New(g)
	}
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
	_, err := g.AddRepo(context.Background(), owner, name, filesUnder(ts, args[1]))
	ts.Check(err)
	ts.Check(g.SetPermission(owner, name, "core-bot", "write"))
}

// github-issue OWNER/NAME FILE [LABELS]: an issue whose title is FILE's
// first line and body the rest, with the comma-separated LABELS.
func cmdGitHubIssue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: github-issue OWNER/NAME FILE [LABELS]")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	title, body, _ := strings.Cut(ts.ReadFile(args[1]), "\n")
	var labels []string
	if len(args) == 3 {
		labels = strings.Split(args[2], ",")
	}
	n, err := githubOf(ts).AddIssue(owner, name, ghfake.Issue{Title: title, Body: body, Labels: labels})
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

// github-perm OWNER/NAME LOGIN ROLE: give LOGIN a role on the repository.
func cmdGitHubPerm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: github-perm OWNER/NAME LOGIN ROLE")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	ts.Check(githubOf(ts).SetPermission(owner, name, args[1], args[2]))
}

// github-comment OWNER/NAME NUMBER LOGIN VAR TEXT: LOGIN comments TEXT on
// NUMBER; VAR holds the comment's id.
func cmdGitHubComment(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: github-comment OWNER/NAME NUMBER LOGIN VAR TEXT")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	id, err := githubOf(ts).AddComment(owner, name, n, ghfake.Comment{User: args[2], Body: strings.ReplaceAll(args[4], `\n`, "\n")})
	ts.Check(err)
	ts.Setenv(args[3], strconv.FormatInt(id, 10))
}

// github-pr OWNER/NAME BRANCH TITLE [FORK] [PATH=FILE...]: a pull request
// from BRANCH (made with one commit: each PATH with the content of FILE,
// else BRANCH.txt) into the default branch; from the fork FORK
// (owner/name, made here) when given.
func cmdGitHubPR(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: github-pr OWNER/NAME BRANCH TITLE [FORK] [PATH=FILE...]")
	}
	g := githubOf(ts)
	owner, name, _ := strings.Cut(args[0], "/")
	ctx := context.Background()
	headRepo := ""
	repoName := args[0]
	// The head's commit: the files PATH=FILE name (FILE in $WORK), else
	// BRANCH.txt.
	files := map[string]string{}
	for _, a := range args[3:] {
		if path, file, ok := strings.Cut(a, "="); ok {
			files[path] = ts.ReadFile(file)
			continue
		}
		if headRepo != "" {
			ts.Fatalf("usage: github-pr OWNER/NAME BRANCH TITLE [FORK] [PATH=FILE...]")
		}
		fo, fn, _ := strings.Cut(a, "/")
		_, err := g.AddRepo(ctx, fo, fn, nil, ghfake.ForkOf(args[0]))
		ts.Check(err)
		headRepo, repoName = a, a
	}
	if len(files) == 0 {
		files[args[1]+".txt"] = "work\n"
	}
	ro, rn, _ := strings.Cut(repoName, "/")
	repo := g.Repo(ro, rn)
	if repo == nil {
		ts.Fatalf("github-pr: no repository %s", repoName)
	}
	_, err := repo.Commit(ctx, args[1], "work on "+args[1], files)
	ts.Check(err)
	n, err := g.AddPull(ctx, owner, name, ghfake.Pull{Title: args[2], Head: args[1], HeadRepo: headRepo, User: "alice"})
	ts.Check(err)
	ts.Logf("pull request #%d", n)
}

// github-var OWNER/NAME NAME VALUE: set an Actions variable.
func cmdGitHubVar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: github-var OWNER/NAME NAME VALUE")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	ts.Check(githubOf(ts).SetVariable(owner, name, args[1], args[2]))
}

// github-issues OWNER/NAME FILE: write every issue with its labels,
// comments and reactions to FILE, for grep.
func cmdGitHubIssues(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: github-issues OWNER/NAME FILE")
	}
	g := githubOf(ts)
	owner, name, _ := strings.Cut(args[0], "/")
	var b strings.Builder
	for _, is := range g.Issues(owner, name) {
		fmt.Fprintf(&b, "issue #%d pr=%v labels=%s title: %s\n", is.Number, is.PullRequest, strings.Join(is.Labels, ","), is.Title)
		for _, c := range g.Comments(owner, name, is.Number) {
			fmt.Fprintf(&b, "comment %d by %s:\n%s\n", c.ID, c.User, c.Body)
			for _, r := range g.CommentReactions(owner, name, c.ID) {
				fmt.Fprintf(&b, "reaction %s by %s on comment %d\n", r.Content, r.User, c.ID)
			}
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// github-reviews OWNER/NAME NUMBER FILE: write the reviews of pull request
// NUMBER, with their comments, then every review comment of the pull
// request ("line comment by USER on PATH:LINE of SHA:"), to FILE, for grep.
func cmdGitHubReviews(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: github-reviews OWNER/NAME NUMBER FILE")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	for _, rv := range githubOf(ts).Reviews(owner, name, n) {
		fmt.Fprintf(&b, "review %s by %s of %s:\n%s\n", rv.State, rv.User, rv.CommitID, rv.Body)
		for _, c := range rv.Comments {
			fmt.Fprintf(&b, "comment on %s:%d-%d %s:\n%s\n", c.Path, c.StartLine, c.Line, c.Side, c.Body)
		}
	}
	for _, c := range githubOf(ts).ReviewComments(owner, name, n) {
		fmt.Fprintf(&b, "line comment by %s on %s:%d of %s:\n%s\n", c.User, c.Path, c.Line, c.CommitID, c.Body)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(b.String()), 0o644))
}

// github-requests FILE: write every API and git request so far, one
// "METHOD PATH login=LOGIN" a line, to FILE.
func cmdGitHubRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: github-requests FILE")
	}
	var b strings.Builder
	for _, r := range githubOf(ts).Requests() {
		fmt.Fprintf(&b, "%s %s login=%s\n", r.Method, r.Path, r.Login)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// github-token LOGIN VAR: a new token that authenticates LOGIN (a
// "[bot]" login is a GitHub App's, which may make check runs); VAR holds
// it.
func cmdGitHubToken(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: github-token LOGIN VAR")
	}
	token := "ghs_" + strings.NewReplacer("[", "", "]", "", "-", "").Replace(args[0]) + "Token0123456789"
	githubOf(ts).AddToken(token, args[0])
	ts.Setenv(args[1], token)
}

// github-checks OWNER/NAME FILE: write the repository's check runs, oldest
// first, to FILE, for grep.
func cmdGitHubChecks(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: github-checks OWNER/NAME FILE")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	var b strings.Builder
	for _, cr := range githubOf(ts).CheckRuns(owner, name) {
		fmt.Fprintf(&b, "check %s on %s: %s %s by %s\ndetails: %s\nexternal: %s\ntitle: %s\nsummary:\n%s\n",
			cr.Name, cr.HeadSHA, cr.Status, cr.Conclusion, cr.App, cr.DetailsURL, cr.ExternalID, cr.Title, cr.Summary)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

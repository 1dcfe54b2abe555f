package main

import (
	"context"
	"os/exec"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/session/receipt"
)

// github-contract-run OWNER/NAME RECEIPT [CARRIED]: a completed
// core/contract check run on RECEIPT's result commit, its summary naming
// RECEIPT's hash and its text carrying CARRIED (RECEIPT when not given),
// as the land code posts it.
func cmdGitHubContractRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: github-contract-run OWNER/NAME RECEIPT [CARRIED]")
	}
	data := []byte(ts.ReadFile(args[1]))
	r, err := receipt.Parse(data)
	ts.Check(err)
	carried := data
	if len(args) == 3 {
		carried = []byte(ts.ReadFile(args[2]))
	}
	owner, name, _ := strings.Cut(args[0], "/")
	id, err := githubOf(ts).AddCheckRun(owner, name, ghfake.CheckRun{
		HeadSHA: r.Result.Commit, Name: "core/contract", Conclusion: "success", Title: "contract " + r.Verdict,
		Summary: "The contract " + r.Verdict + ".\n\n" + receipt.SummaryLine(receipt.Hash(data)) + "\n",
		Text:    receipt.CheckText(carried),
	})
	ts.Check(err)
	ts.Logf("check run %d on %s", id, r.Result.Commit)
}

// github-force-push OWNER/NAME BRANCH FILE CONTENT: BRANCH force-pushed to
// a commit on the default branch's head whose FILE holds CONTENT (with \n
// read as a newline). The commit BRANCH held stays where other refs (a
// pull request's refs/pull/N/head) reach it, as on GitHub.
func cmdGitHubForcePush(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: github-force-push OWNER/NAME BRANCH FILE CONTENT")
	}
	owner, name, _ := strings.Cut(args[0], "/")
	repo := githubOf(ts).Repo(owner, name)
	if repo == nil {
		ts.Fatalf("github-force-push: no repository %s", args[0])
	}
	const tmp = "testkit-force-push"
	content := strings.ReplaceAll(args[3], `\n`, "\n")
	sha, err := repo.Commit(context.Background(), tmp, "force-pushed", map[string]string{args[2]: content})
	ts.Check(err)
	for _, update := range [][]string{{"refs/heads/" + args[1], sha}, {"-d", "refs/heads/" + tmp}} {
		out, err := exec.Command("git", append([]string{"-C", repo.Dir(), "update-ref"}, update...)...).CombinedOutput()
		if err != nil {
			ts.Fatalf("github-force-push: git update-ref %v: %v: %s", update, err, out)
		}
	}
	ts.Logf("%s of %s now at %s", args[1], args[0], sha)
}

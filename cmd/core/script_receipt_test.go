package main

import (
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

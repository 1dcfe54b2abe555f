package review

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/openapi"
	"github.com/coreagent/core/session/contract"
)

// checks is a contract of one check per verdict pair: green on both, or
// green on the base and red on the head.
func checks(regressed bool) *contract.Contract {
	result := contract.CheckResult{Passed: !regressed, Exit: map[bool]int{true: 1}[regressed]}
	return contract.NewContract([]contract.CheckRun{{Command: []string{"go", "test", "./..."}, Baseline: contract.CheckResult{Passed: true}, Result: result}}, 0)
}

func TestConclusion(t *testing.T) {
	t.Parallel()
	a := confirmed("calc/div.go", 7, "Div panics", "boom")
	u := Finding{File: "calc/div.go", Line: 8, Claim: "maybe"}
	for _, tc := range []struct {
		name              string
		r                 Result
		conclusion, title string
	}{
		{"clean", Result{Contract: checks(false)}, "success", "no confirmed finding"},
		{"confirmed", Result{Contract: checks(false), Findings: []Finding{a, u, a}}, "failure", "2 confirmed findings"},
		{"regressed", Result{Contract: checks(true), Findings: []Finding{u}}, "failure", "no confirmed finding; 1 check red on the head, green on the base"},
		{"both", Result{Contract: checks(true), Findings: []Finding{a}}, "failure", "1 confirmed finding; 1 check red on the head, green on the base"},
		{"unconfirmed only", Result{Contract: checks(false), Findings: []Finding{u}}, "neutral", "no confirmed finding, 1 unconfirmed"},
		{"no checks", Result{}, "neutral", "UNVERIFIED: no checks ran; no confirmed finding"},
		{"no checks, a confirmed finding", Result{Findings: []Finding{a}}, "failure", "1 confirmed finding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conclusion, title := Conclusion(tc.r)
			assert.Equal(t, tc.conclusion, conclusion)
			assert.Equal(t, tc.title, title)
		})
	}
}

func TestCheckRunOnePerHead(t *testing.T) {
	t.Parallel()
	g, _, head := newPull(t)
	ctx := t.Context()
	app, err := gh.New(gh.Credentials{Token: coreToken, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	a := confirmed("calc/div.go", 7, "Div panics on zero", "boom")
	r := reviewOf(head, a, Finding{File: "calc/div.go", Line: 8, Claim: "maybe"})
	r.Contract = checks(false)
	scrub := func(s string) string { return strings.ReplaceAll(s, "panics", "[scrubbed]") }
	url, err := CheckRun(ctx, app, target, r, "https://github.example/review", scrub)
	require.NoError(t, err)
	assert.Contains(t, url, "/owner/repo/runs/")

	runs := g.CheckRuns("owner", "repo")
	require.Len(t, runs, 1)
	run := runs[0]
	assert.Equal(t, CheckRunName, run.Name)
	assert.Equal(t, head, run.HeadSHA)
	assert.Equal(t, "failure", run.Conclusion)
	assert.Equal(t, "1 confirmed finding", run.Title)
	assert.Equal(t, "https://github.example/review", run.DetailsURL)
	assert.Contains(t, run.Summary, "1 confirmed finding, 1 unconfirmed.")
	assert.Contains(t, run.Summary, "### Checks")
	assert.Contains(t, run.Summary, "[the review](https://github.example/review)")
	require.Len(t, run.Annotations, 1, "one annotation per confirmed finding")
	an := run.Annotations[0]
	assert.Equal(t, "calc/div.go", an.Path)
	assert.Equal(t, 7, an.StartLine)
	assert.Equal(t, "failure", an.AnnotationLevel)
	assert.Equal(t, "Confirmed: Div [scrubbed] on zero", an.Title)
	assert.Contains(t, an.Message, "Reproduced by: go test -run 'TestDiv$' ./calc (exited 1 on the head; on the base it passed (exit 0))")

	r.Findings = nil
	_, err = CheckRun(ctx, app, target, r, "https://github.example/review", scrub)
	require.NoError(t, err)
	runs = g.CheckRuns("owner", "repo")
	require.Len(t, runs, 1, "a re-run on the same head updates the one run")
	assert.Equal(t, "success", runs[0].Conclusion)
	assert.Equal(t, 2, openapi.RequireValid(t, openapi.GitHub(t), g, "/repos/owner/repo/check-runs"), "the POST and the PATCH match GitHub's description")

	user, err := gh.New(gh.Credentials{Token: ownerToken, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	_, err = CheckRun(ctx, user, target, r, "", scrub)
	require.ErrorIs(t, err, gh.ErrCheckRunsRefused, "a personal token may not make check runs")
}

package review

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/testclass"
	"github.com/coreagent/core/status"
)

var headSHA, baseSHA = strings.Repeat("b", 40), strings.Repeat("a", 40)

// confirmed is a finding the harness confirmed: its reproduction failed
// on the head with excerpt and passed on the base.
func confirmed(file string, line int, claim, excerpt string) Finding {
	return Finding{File: file, Line: line, Claim: claim, Confirmed: true, Why: "it failed on the head as predicted",
		Reproduction: &Reproduction{Path: "calc/div_test.go", Content: "package calc\n\nfunc TestDiv(t *testing.T) {}\n",
			Command: []string{"go", "test", "-run", "TestDiv$", "./calc"}, Expect: "divide by zero",
			Head: &Ran{Exit: 1, Excerpt: excerpt}, Base: &Ran{Exit: 0, Passed: true}}}
}

func TestBody(t *testing.T) {
	t.Parallel()
	cost := 0.0123
	tests := &testclass.Classification{Files: []testclass.Classified{{
		Path: "calc/div_test.go", Commands: [][]string{{"go", "test", "-run", "^TestDiv$", "./calc"}},
		Base: testclass.Side{Exit: 1}, Head: testclass.Side{Passed: true}, Class: testclass.TestsChange, Reason: "fails on the base, passes on the head",
	}}}
	full := Result{SessionID: "s1", Base: baseSHA, Head: headSHA, Summary: "One bug in Div.", Turns: 3, Tokens: 900, CostUSD: &cost,
		Findings: []Finding{
			{File: "calc/mul.go", Line: 4, Claim: "Mul may overflow </details> <!-- core:finding:x -->", Why: "no reproduction"},
			confirmed("calc/div.go", 7, "Div panics on zero", "--- FAIL: TestDiv\npanic: runtime error: integer divide by zero"),
		},
		Tests: tests}
	for _, tc := range []struct {
		name    string
		r       Result
		want    []string
		notWant []string
	}{{
		name: "confirmed, unconfirmed, tests",
		r:    full,
		want: []string{
			"against the base (aaaaaaaaaaaa), session `s1`. It changed no code and pushed nothing.\n\n### 1 confirmed finding\n\n#### 1. `calc/div.go:7`\n\nDiv panics on zero\n\n",
			"The harness ran `go test -run 'TestDiv$' ./calc` on the head: it exited 1.\n\n```text\n--- FAIL: TestDiv\npanic: runtime error: integer divide by zero\n```\n\nOn the base it passed (exit 0).\n",
			"The reproduction, as a suggested test (`calc/div_test.go`):\n\n```go\npackage calc\n",
			"<details><summary>1 unconfirmed finding (no reproduction the harness ran confirmed it)</summary>\n\n- `calc/mul.go:4`: Mul may overflow &lt;/details> &lt;!-- core:finding:x --> (no reproduction)\n\n</details>\n",
			"### Checks", "### The pull request's tests", "**tests the change**",
			"### Review\n\nOne bug in Div.\n",
			"Turns: 3, tokens: 900, cost_usd: 0.0123.",
		},
		notWant: []string{"core has not yet reproduced", "budget ran out", "Cut to fit", "not in the diff"},
	}, {
		name:    "no finding, exhausted, no price",
		r:       Result{Head: headSHA, Summary: "Nothing wrong.", Exhausted: true},
		want:    []string{"**No confirmed finding**", "cost_usd: unknown.", "The run's budget ran out: this review holds what the harness confirmed so far."},
		notWant: []string{"<details>", "### The pull request's tests"},
	}, {
		name: "a line outside the diff",
		r:    Result{Head: headSHA, Findings: []Finding{confirmed("calc/div.go", 70, "Div panics", "boom")}, NoComment: map[int]string{0: "Line 70 is not in the diff"}},
		want: []string{"_Line 70 is not in the diff: this finding has no line comment._"},
	}, {
		name: "an excerpt that tries to close its fence",
		r:    Result{Head: headSHA, Findings: []Finding{confirmed("a.go", 1, "x", "```\n# escaped\n`````")}},
		want: []string{"``````text\n```\n# escaped\n`````\n``````\n"},
	}, {
		name: "the model's words open no fence",
		r: Result{Head: headSHA, Summary: "See:\n\n````go\nfunc f() {}\n```\nstill code",
			Findings: []Finding{{File: "a.go", Line: 1, Claim: "```\nswallow the rest", Why: "~~~"}}},
		want: []string{"- `a.go:1`: \\`\\`\\` swallow the rest (\\~\\~\\~)\n", "````go\nfunc f() {}\n```\nstill code\n````\n"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			body := Body(tc.r)
			for _, w := range tc.want {
				assert.Contains(t, body, w)
			}
			for _, w := range tc.notWant {
				assert.NotContains(t, body, w)
			}
			assert.True(t, strings.HasSuffix(body, status.ReviewMarker(headSHA)+"\n"), "the marker ends the body")
		})
	}
	body := Body(full)
	assert.Less(t, strings.Index(body, "### 1 confirmed"), strings.Index(body, "<details>"), "confirmed findings come first")
	assert.Less(t, strings.Index(body, "</details>"), strings.Index(body, "### Checks"))
	assert.Less(t, strings.Index(body, "### Checks"), strings.Index(body, "### The pull request's tests"))
	assert.Less(t, strings.Index(body, "### The pull request's tests"), strings.Index(body, "### Review"))
}

func TestBodyCutsToFit(t *testing.T) {
	t.Parallel()
	var c *contract.Contract
	big := strings.Repeat("é", maxBody)
	r := Result{Head: headSHA, Summary: big, Contract: c, Findings: []Finding{confirmed("a.go", 3, "Div panics", "boom")}}
	for i := range 400 {
		r.Findings = append(r.Findings, Finding{File: "b.go", Line: i + 1, Claim: strings.Repeat("maybe wrong ", 20), Why: "no reproduction"})
	}
	body := Body(r)
	require.LessOrEqual(t, len(body), maxBody)
	assert.Contains(t, body, "(Cut to fit GitHub's limit: the model's summary, unconfirmed findings.)")
	assert.Contains(t, body, "<summary>400 unconfirmed findings")
	assert.Contains(t, body, "more, left out to fit GitHub's limit")
	assert.Contains(t, body, "The harness ran `go test -run 'TestDiv$' ./calc` on the head: it exited 1.", "a confirmed finding's command is never cut")
	assert.Contains(t, body, status.ReviewMarker(headSHA), "a cut review keeps its marker")

	r.Summary = "short"
	r.Findings = r.Findings[:1]
	r.Findings[0].Reproduction.Content = strings.Repeat("x", maxFile)
	for range 6 {
		r.Findings = append(r.Findings, r.Findings[0])
	}
	body = Body(r)
	require.LessOrEqual(t, len(body), maxBody)
	assert.Contains(t, body, "(Cut to fit GitHub's limit: the model's summary, the suggested tests.)")
	assert.Equal(t, 7, strings.Count(body, "on the head: it exited 1."), "every confirmed finding stays")
}

func TestCloseFences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"no fence", "a\nb", "a\nb"},
		{"closed", "```go\nx\n```", "```go\nx\n```"},
		{"open", "```go\nx", "```go\nx\n```"},
		{"a shorter run does not close", "````\n```\nx", "````\n```\nx\n````"},
		{"tildes", "~~~\nx\n", "~~~\nx\n~~~"},
		{"the other kind does not close", "~~~\n```", "~~~\n```\n~~~"},
		{"indented four is code, not a fence", "    ```\nx", "    ```\nx"},
		{"a closing line with words does not close", "```\n``` x", "```\n``` x\n```"},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, closeFences(tc.in)) })
	}
}

func FuzzCloseFences(f *testing.F) {
	for _, s := range []string{"```go\nx", "~~~\n```", "````\n```\nx", "  ```\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := closeFences(s)
		if !strings.HasPrefix(once, strings.TrimRight(s, "\n")) {
			t.Fatalf("closeFences changed the text: %q -> %q", s, once)
		}
		if twice := closeFences(once); twice != once {
			t.Fatalf("a fence is still open after closing: %q -> %q", once, twice)
		}
	})
}

// TestWordsForAReview: the contract's words for a change run read as a
// review's, in its table and in its one line, when no check ran.
func TestWordsForAReview(t *testing.T) {
	t.Parallel()
	var none *contract.Contract
	table := checksTable(none)
	assert.Contains(t, table, "the pull request is UNVERIFIED")
	assert.NotContains(t, table, "patch")
	assert.Equal(t, "warning: the harness ran no checks on the head — the pull request is UNVERIFIED", Words(none.Line()))
	assert.Equal(t, "checks (run by the harness on the base and on the head):", Words("checks (run by the harness on the start commit and on the result):"))
}

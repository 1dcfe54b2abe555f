package review

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/openapi"
	"github.com/coreagent/core/status"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const coreToken, ownerToken = "ghs_ReviewTestCore", "ghp_ReviewTestOwner"

var target = Target{Owner: "owner", Name: "repo", Number: 1}

// calc is calc/div.go of twelve lines; the pull request changes line 7,
// so its diff shows lines 4 to 10.
func calc(line7 string) map[string]string {
	var b strings.Builder
	for i := 1; i <= 12; i++ {
		if i == 7 {
			b.WriteString(line7 + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return map[string]string{"calc/div.go": b.String()}
}

// newPull serves owner/repo with pull request #1 (branch topic) and
// returns the fake, core's client and the pull request's head.
func newPull(t *testing.T) (*ghfake.GitHub, *gh.Client, string) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.AddToken(coreToken, "core[bot]")
	g.AddToken(ownerToken, "owner")
	repo := g.MustAddRepo(t, "owner", "repo", calc("line 7"))
	require.NoError(t, g.SetPermission("owner", "repo", "core[bot]", "write"))
	head, err := repo.Commit(t.Context(), "topic", "change div", calc("return a / b"))
	require.NoError(t, err)
	_, err = g.AddPull(t.Context(), "owner", "repo", ghfake.Pull{Title: "change div", Head: "topic", User: "owner"})
	require.NoError(t, err)
	c, err := gh.New(gh.Credentials{Token: coreToken, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	return g, c, head
}

func noScrub(s string) string { return s }

func reviewOf(head string, fs ...Finding) Result {
	return Result{SessionID: "s1", Base: strings.Repeat("a", 40), Head: head, Summary: "summary", Findings: fs}
}

// byKey is the review comments of the pull request by finding key.
func byKey(t *testing.T, g *ghfake.GitHub) map[string]ghfake.ReviewComment {
	t.Helper()
	out := map[string]ghfake.ReviewComment{}
	for _, c := range g.ReviewComments("owner", "repo", 1) {
		key := status.FindingIn(c.Body)
		_, dup := out[key+c.User]
		require.False(t, dup, "one comment per finding and author: %s", c.Body)
		out[key+c.User] = c
	}
	return out
}

func TestPostLineComments(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	inDiff := confirmed("calc/div.go", 7, "Div panics on zero", "panic: integer divide by zero")
	outside := confirmed("calc/div.go", 1, "the package doc is wrong", "FAIL")
	unconfirmed := Finding{File: "calc/div.go", Line: 8, Claim: "maybe slow", Why: "no reproduction"}
	out, err := Post(t.Context(), c, target, reviewOf(head, outside, unconfirmed, inDiff), noScrub)
	require.NoError(t, err)
	assert.False(t, out.Updated)
	assert.Equal(t, 1, out.Added)
	assert.Contains(t, Where(out, head), "(line comments: 1 added)")

	reviews := g.Reviews("owner", "repo", 1)
	require.Len(t, reviews, 1)
	assert.Contains(t, reviews[0].Body, "_Line 1 is not in the diff: this finding has no line comment._")
	assert.Contains(t, reviews[0].Body, "1 unconfirmed finding")
	comments := g.ReviewComments("owner", "repo", 1)
	require.Len(t, comments, 1, "one line comment: the finding outside the diff and the unconfirmed one have none")
	cm := comments[0]
	assert.Equal(t, "calc/div.go", cm.Path)
	assert.Equal(t, 7, cm.Line)
	assert.Equal(t, head, cm.CommitID)
	assert.True(t, strings.HasPrefix(cm.Body, "**Confirmed on `"+clip.Hash(head)+"`**"))
	assert.Contains(t, cm.Body, "The harness ran `go test -run 'TestDiv$' ./calc` on the head: it exited 1.")
	assert.Contains(t, cm.Body, "panic: integer divide by zero")
	assert.Contains(t, cm.Body, "On the base it passed (exit 0).")
	assert.Contains(t, cm.Body, "```go\npackage calc\n")
	assert.NotContains(t, cm.Body, "```suggestion")
	assert.Equal(t, inDiff.Key(), status.FindingIn(cm.Body))
	assert.Equal(t, 1, openapi.RequireValid(t, openapi.GitHub(t), g, "/repos/owner/repo/pulls"), "the review's POST matches GitHub's description")
}

func TestPostSameHeadUpdatesTheComments(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	ctx := t.Context()
	a := confirmed("calc/div.go", 7, "Div panics on zero", "first output")
	b := confirmed("calc/div.go", 8, "line 8 is off by one", "FAIL b")
	_, err := Post(ctx, c, target, reviewOf(head, a, b), noScrub)
	require.NoError(t, err)

	a.Reproduction.Head = &Ran{Exit: 2, Excerpt: "second output"}
	gone := Finding{File: b.File, Line: b.Line, Claim: b.Claim, Why: "its reproduction passed on the head"}
	newer := confirmed("calc/div.go", 9, "line 9 leaks", "FAIL c")
	out, err := Post(ctx, c, target, reviewOf(head, a, gone, newer), noScrub)
	require.NoError(t, err)
	assert.True(t, out.Updated)
	assert.Equal(t, Posted{URL: out.URL, Updated: true, Added: 1, Edited: 2}, out)

	require.Len(t, g.Reviews("owner", "repo", 1), 1, "one review per head")
	got := byKey(t, g)
	require.Len(t, got, 3, "no duplicates: a's edited, b's retired, the new one added")
	assert.Contains(t, got[a.Key()+"core[bot]"].Body, "second output")
	assert.NotContains(t, got[a.Key()+"core[bot]"].Body, "first output")
	retired := got[b.Key()+"core[bot]"].Body
	assert.True(t, strings.HasPrefix(retired, "**No longer confirmed** on `"+clip.Hash(head)+"`: its reproduction passed on the head.\n\n<details><summary>What this comment said</summary>"), retired)
	assert.Equal(t, b.Key(), status.FindingIn(retired), "a retired comment keeps its marker")
	assert.Equal(t, 9, got[newer.Key()+"core[bot]"].Line)

	before := len(g.Requests())
	again, err := Post(ctx, c, target, reviewOf(head, a, gone, newer), noScrub)
	require.NoError(t, err)
	assert.Equal(t, Posted{URL: out.URL, Updated: true}, again, "the same review again changes no comment")
	assert.Len(t, byKey(t, g), 3)
	for _, r := range g.Requests()[before:] {
		assert.False(t, r.Method == "PATCH" || r.Method == "POST", "%s %s", r.Method, r.Path)
	}
	assert.Equal(t, 6, openapi.RequireValid(t, openapi.GitHub(t), g, "/repos/owner/repo/pulls"), "a review, two PUTs of its body, two PATCHes of comments and a comment's POST")
}

func TestPostNewHeadMarksTheOldComments(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	ctx := t.Context()
	a := confirmed("calc/div.go", 7, "Div panics on zero", "boom")
	b := confirmed("calc/div.go", 8, "line 8 is off by one", "FAIL b")
	_, err := Post(ctx, c, target, reviewOf(head, a, b), noScrub)
	require.NoError(t, err)
	planted := "someone's copy\n\n" + status.FindingMarker(b.Key())
	require.NoError(t, g.AddReviewThread("owner", "repo", 1, ghfake.ReviewThread{Comments: []ghfake.ReviewComment{{User: "owner", Path: "calc/div.go", Line: 8, Body: planted}}}))

	next, err := g.Repo("owner", "repo").Commit(ctx, "topic", "change div again", calc("return a / b // b != 0"))
	require.NoError(t, err)
	for range 2 {
		out, err := Post(ctx, c, target, reviewOf(next, a), noScrub)
		require.NoError(t, err)
		assert.Equal(t, 0, out.Edited)
	}
	require.Len(t, g.Reviews("owner", "repo", 1), 2, "a new head gets its own review, once")
	var old []ghfake.ReviewComment
	for _, cm := range g.ReviewComments("owner", "repo", 1) {
		if cm.CommitID == head {
			old = append(old, cm)
		}
	}
	require.Len(t, old, 3)
	n := clip.Hash(next)
	assert.True(t, strings.HasPrefix(old[0].Body, "Still reproduces on `"+n+"`: see [the review of "+n+"]("), old[0].Body)
	assert.Equal(t, 1, strings.Count(old[0].Body, "Still reproduces"), "a second run replaces the line, never stacks it")
	assert.True(t, strings.HasPrefix(old[1].Body, "Resolved: no longer reproduces on `"+n+"`.\n\n**Confirmed on"), old[1].Body)
	assert.Equal(t, planted, old[2].Body, "someone else's marked comment is left alone")
	patches := 0
	for _, r := range g.Requests() {
		if r.Method == "PATCH" && strings.HasPrefix(r.Path, "/repos/owner/repo/pulls/comments/") {
			patches++
		}
	}
	assert.Equal(t, 2, patches, "core's two old comments edited once each; someone else's never tried")
	onNext := 0
	for _, cm := range g.ReviewComments("owner", "repo", 1) {
		if cm.CommitID == next {
			onNext++
			assert.Equal(t, a.Key(), status.FindingIn(cm.Body))
		}
	}
	assert.Equal(t, 1, onNext, "the new review's one comment, not two")
}

func TestPostLeavesSomeoneElsesMarkedReview(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	ctx := context.Background()
	owner, err := gh.New(gh.Credentials{Token: ownerToken, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	_, err = owner.CreateReview(ctx, "owner", "repo", 1, gh.NewReview{CommitID: head, Body: "planted " + status.ReviewMarker(head)})
	require.NoError(t, err)
	out, err := Post(ctx, c, target, reviewOf(head), noScrub)
	require.NoError(t, err)
	assert.False(t, out.Updated)
	reviews := g.Reviews("owner", "repo", 1)
	require.Len(t, reviews, 2)
	assert.Equal(t, "planted "+status.ReviewMarker(head), reviews[0].Body, "another's review is never edited")
	assert.Equal(t, "core[bot]", reviews[1].User)
	for _, r := range g.Requests() {
		assert.NotContains(t, r.Path, "git-receive-pack", "a review pushes nothing")
		assert.NotContains(t, r.Path, "/git/refs", "a review makes no branch")
		assert.False(t, r.Method == "POST" && r.Path == "/repos/owner/repo/pulls", "a review opens no pull request")
	}
}

// movingHead is core's client to a pull request whose head moves right
// after Post has read its diff: as when someone pushes while the review
// is being posted.
type movingHead struct {
	*gh.Client
	t    *testing.T
	repo *ghfake.Repo
}

func (m movingHead) PullFiles(ctx context.Context, owner, name string, number int) ([]gh.PullFile, error) {
	files, err := m.Client.PullFiles(ctx, owner, name, number)
	// The new head changes line 2 and leaves line 7 as the base has it:
	// its diff no longer shows line 7.
	moved := calc("line 7")
	moved["calc/div.go"] = strings.Replace(moved["calc/div.go"], "line 2\n", "// line 2\n", 1)
	_, cerr := m.repo.Commit(ctx, "topic", "rework", moved)
	require.NoError(m.t, cerr)
	return files, err
}

// TestPostWhenTheHeadMoves: GitHub refuses line comments its diff does
// not show (422) once the head has moved; the review goes up all the
// same, each finding in its body with why it has no line comment, and
// Post says so, rather than failing the run.
func TestPostWhenTheHeadMoves(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	f := confirmed("calc/div.go", 7, "Div panics on zero", "panic: integer divide by zero")
	out, err := Post(t.Context(), movingHead{Client: c, t: t, repo: g.Repo("owner", "repo")}, target, reviewOf(head, f), noScrub)
	require.NoError(t, err)
	assert.Zero(t, out.Added)
	require.Len(t, out.Notes, 1)
	assert.Contains(t, out.Notes[0], "GitHub refused the line comments")
	reviews := g.Reviews("owner", "repo", 1)
	require.Len(t, reviews, 1, "one review, the second try")
	assert.Equal(t, head, reviews[0].CommitID, "on the commit reviewed")
	assert.Contains(t, reviews[0].Body, "_GitHub refused the line comments (the pull request's head may have moved since the review): this finding has no line comment._")
	assert.Contains(t, reviews[0].Body, "panic: integer divide by zero", "its evidence is in the body")
	assert.Empty(t, g.ReviewComments("owner", "repo", 1))
}

package resolver

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
)

const token = "ghs_ResolverTestToken1"

func TestResolve(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	g.AddToken(token, "core-bot")
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"calc.go": "package calc\n"})
	require.NoError(t, g.SetPermission("octo", "hello", "core-bot", "write"))
	head, err := repo.Commit(t.Context(), "feature", "start", map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"})
	require.NoError(t, err)
	num, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "Add Add", Body: "Adds.<!-- hidden -->", Head: "feature", User: "alice"})
	require.NoError(t, err)
	_, err = g.AddCheckRun("octo", "hello", ghfake.CheckRun{HeadSHA: head, Name: "test", Status: "completed", Conclusion: "failure",
		Title: "1 test failed", Summary: "TestAdd failed",
		Annotations: []ghfake.Annotation{{Path: "calc.go", StartLine: 3, EndLine: 3, AnnotationLevel: "failure", Message: "Add(2, 3) = -1, want 5"}}})
	require.NoError(t, err)
	_, err = g.AddCheckRun("octo", "hello", ghfake.CheckRun{HeadSHA: head, Name: "lint", Status: "completed", Conclusion: "success"})
	require.NoError(t, err)
	require.NoError(t, g.AddReviewThread("octo", "hello", num, ghfake.ReviewThread{Comments: []ghfake.ReviewComment{{User: "bob", Body: "Please name it Sum.", Path: "calc.go", Line: 3}}}))
	require.NoError(t, g.AddReviewThread("octo", "hello", num, ghfake.ReviewThread{Resolved: true, Comments: []ghfake.ReviewComment{{User: "bob", Body: "Already resolved.", Path: "calc.go", Line: 1}}}))

	client, err := gh.New(gh.Credentials{Token: token, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: edit_file\npath: calc.go\nold_text: a - b\nnew_text: a + b"),
		llm.ContentReply("tool: done\nsummary: Fix Add"))
	opts := options(t, client, srv)
	rep, err := Run(t.Context(), Request{Client: client, Owner: "octo", Repo: "hello", Number: num, Instruction: "keep the name Add"}, opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Equal(t, "feature", rep.Branch)
	fetched := 0
	for _, r := range g.Requests() {
		if r.Method == "GET" && r.Path == fmt.Sprintf("/repos/octo/hello/pulls/%d", num) {
			fetched++
		}
	}
	assert.Equal(t, 1, fetched, "the pull request is fetched once and passed on")
	assert.Equal(t, num, rep.PullRequest)

	goal := srv.Requests()[0].Messages[1].Content
	for _, want := range []string{
		"Fix pull request #1: Add Add\n\nAdds.\n",
		"The maintainer asks: keep the name Add",
		"Failing checks:\n\n- test (failure): 1 test failed\n  TestAdd failed\n  calc.go:3: failure: Add(2, 3) = -1, want 5",
		"Unresolved review comments:\n\n- calc.go:3\n  @bob: Please name it Sum.",
	} {
		assert.Contains(t, goal, want)
	}
	for _, not := range []string{"hidden", "lint", "Already resolved"} {
		assert.NotContains(t, goal, not)
	}
	sha, _, err := repo.Head(t.Context(), "feature")
	require.NoError(t, err)
	assert.Equal(t, rep.Commit, sha, "the fix is a new commit on the pull request's head")
	assert.True(t, strings.HasPrefix(rep.PRURL, "http"))
}

// TestResolveForkReviews resolves a pull request from a fork: the fork's
// head is fetched through the base repository, nothing is pushed anywhere,
// and the work arrives as a review: a suggestion for the hunk on the pull
// request's lines, the rest (a line outside its diff, a new file) as
// patches in the body, with the contract.
func TestResolveForkReviews(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	g.AddToken(token, "core-bot")
	notes := ""
	for i := 1; i <= 10; i++ {
		notes += fmt.Sprintf("// note %d\n", i)
	}
	base := "package calc\n\n" + notes + "\n// Sub subtracts.\nfunc Sub(a, b int) int { return a - b }\n"
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"calc.go": base})
	require.NoError(t, g.SetPermission("octo", "hello", "core-bot", "write"))
	fork := g.MustAddRepo(t, "mallory", "hello", nil, ghfake.ForkOf("octo/hello"))
	head, err := fork.Commit(t.Context(), "patch", "Add Add", map[string]string{"calc.go": base + "\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n"})
	require.NoError(t, err)
	num, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "Add Add", Head: "patch", HeadRepo: "mallory/hello", User: "mallory"})
	require.NoError(t, err)
	forkRefs := refs(t, fork.Dir())
	baseRefs := refs(t, repo.Dir())

	client, err := gh.New(gh.Credentials{Token: token, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: edit_file\npath: calc.go\nold_text: Add(a, b int) int { return a - b }\nnew_text: Add(a, b int) int { return a + b }"),
		llm.ContentReply("tool: edit_file\npath: calc.go\nold_text: // note 2\nnew_text: // note two"),
		llm.ContentReply("tool: write_file\npath: calc_test.go\ncontent: package calc\n"),
		llm.ContentReply("tool: done\nsummary: Fix Add"))
	opts := options(t, client, srv)
	rep, err := Run(t.Context(), Request{Client: client, Owner: "octo", Repo: "hello", Number: num}, opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Contains(t, srv.Requests()[0].Messages[1].Content, "comes from a fork, so your change is offered to its author as suggested changes")

	reviews := g.Reviews("octo", "hello", num)
	require.Len(t, reviews, 1)
	rv := reviews[0]
	assert.Equal(t, "core-bot", rv.User)
	assert.Equal(t, "COMMENTED", rv.State)
	assert.Equal(t, head, rv.CommitID, "the review is of the head the session started from")
	assert.Equal(t, []ghfake.ReviewDraftComment{{
		Path: "calc.go", Line: 18, Side: "RIGHT",
		Body: "```suggestion\nfunc Add(a, b int) int { return a + b }\n```",
	}}, rv.Comments)
	for _, want := range []string{
		"It comes from the fork mallory/hello, so core pushed nothing to it: the change is the suggestion below",
		"Fix Add",
		"UNVERIFIED",
		"### Changes a suggestion cannot carry",
		"-// note 2\n+// note two\n",
		"new file mode 100644",
		"+++ b/calc_test.go\n@@ -0,0 +1 @@\n+package calc\n",
		"<!-- core:session:" + rep.ID + " -->",
	} {
		assert.Contains(t, rv.Body, want)
	}
	assert.NotContains(t, rv.Body, token)
	assert.Contains(t, rep.PRURL, fmt.Sprintf("/octo/hello/pull/%d#pullrequestreview-", num))
	f, ok := rep.Finding(session.FindingReview)
	require.True(t, ok, "the report says the work went to a review")
	assert.Equal(t, "a review with 1 suggested change and 2 patches on pull request #1, from the fork mallory/hello: nothing was pushed", f.Detail)

	for _, r := range g.Requests() {
		assert.NotContains(t, r.Path, "git-receive-pack", "nothing is pushed: %s %s", r.Method, r.Path)
		assert.NotContains(t, r.Path, "/git/refs", "no branch is moved through the API: %s %s", r.Method, r.Path)
		assert.NotContains(t, r.Path, "mallory", "core never talks to the fork: %s %s", r.Method, r.Path)
	}
	assert.Equal(t, forkRefs, refs(t, fork.Dir()), "the fork's branches are as they were")
	assert.Equal(t, baseRefs, refs(t, repo.Dir()), "no branch was made in the base repository")
}

// options are a session's options on octo/hello, unconfined, against srv.
func options(t *testing.T, client *gh.Client, srv *llm.ModelServer) session.Options {
	t.Helper()
	home := t.TempDir()
	st, err := session.OpenStore(home)
	require.NoError(t, err)
	return session.Options{
		Goal: session.Goal{Repo: "octo/hello"},
		Services: session.Services{
			Store:   st,
			GitHub:  client,
			Secrets: client.Secrets(),
			Sandbox: sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeOff, Path: os.Getenv("PATH")}),
			Client:  model.New(model.Config{BaseURL: srv.URL, Backoff: model.Backoff{Initial: time.Millisecond, Max: time.Millisecond}}),
			GitEnv:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
		},
	}
}

// refs lists a bare repository's branches and tags with their commits.
func refs(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "git", "-C", dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags").Output()
	require.NoError(t, err)
	return string(out)
}

package resolver

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
)

const token = "ghs_ResolverTestToken1"

func TestResolve(t *testing.T) {
	t.Parallel()
	g := testkit.NewGitHub(t)
	g.AddToken(token, "core-bot")
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"calc.go": "package calc\n"})
	require.NoError(t, g.SetPermission("octo", "hello", "core-bot", "write"))
	head, err := repo.Commit(t.Context(), "feature", "start", map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"})
	require.NoError(t, err)
	num, err := g.AddPull(t.Context(), "octo", "hello", testkit.Pull{Title: "Add Add", Body: "Adds.<!-- hidden -->", Head: "feature", User: "alice"})
	require.NoError(t, err)
	_, err = g.AddCheckRun("octo", "hello", testkit.CheckRun{HeadSHA: head, Name: "test", Status: "completed", Conclusion: "failure",
		Title: "1 test failed", Summary: "TestAdd failed",
		Annotations: []testkit.Annotation{{Path: "calc.go", StartLine: 3, EndLine: 3, AnnotationLevel: "failure", Message: "Add(2, 3) = -1, want 5"}}})
	require.NoError(t, err)
	_, err = g.AddCheckRun("octo", "hello", testkit.CheckRun{HeadSHA: head, Name: "lint", Status: "completed", Conclusion: "success"})
	require.NoError(t, err)
	require.NoError(t, g.AddReviewThread("octo", "hello", num, testkit.ReviewThread{Comments: []testkit.ReviewComment{{User: "bob", Body: "Please name it Sum.", Path: "calc.go", Line: 3}}}))
	require.NoError(t, g.AddReviewThread("octo", "hello", num, testkit.ReviewThread{Resolved: true, Comments: []testkit.ReviewComment{{User: "bob", Body: "Already resolved.", Path: "calc.go", Line: 1}}}))

	client, err := gh.New(gh.Credentials{Token: token, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	srv := testkit.NewModelServer(t,
		testkit.ContentReply("tool: edit_file\npath: calc.go\nold_text: a - b\nnew_text: a + b"),
		testkit.ContentReply("tool: done\nsummary: Fix Add"))
	home := t.TempDir()
	st, err := session.OpenStore(home)
	require.NoError(t, err)
	opts := session.Options{
		Store: st, GitHub: client, Secrets: client.Secrets(),
		Sandbox: sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeOff, Path: os.Getenv("PATH")}),
		Client:  model.New(model.Config{BaseURL: srv.URL, Backoff: model.Backoff{Initial: time.Millisecond, Max: time.Millisecond}}),
		GitEnv:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
		Repo:    "octo/hello",
	}
	rep, err := Run(t.Context(), Request{Client: client, Owner: "octo", Repo: "hello", Number: num, Instruction: "keep the name Add"}, opts)
	require.NoError(t, err)
	require.Equal(t, session.StatusCompleted, rep.Status, rep.Error)
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

func TestResolveRefusesForks(t *testing.T) {
	t.Parallel()
	g := testkit.NewGitHub(t)
	g.AddToken(token, "core-bot")
	g.MustAddRepo(t, "octo", "hello", map[string]string{"a": "a\n"})
	fork := g.MustAddRepo(t, "mallory", "hello", nil, testkit.ForkOf("octo/hello"))
	_, err := fork.Commit(t.Context(), "patch", "p", map[string]string{"a": "b\n"})
	require.NoError(t, err)
	num, err := g.AddPull(t.Context(), "octo", "hello", testkit.Pull{Title: "x", Head: "patch", HeadRepo: "mallory/hello"})
	require.NoError(t, err)
	client, err := gh.New(gh.Credentials{Token: token, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	_, err = Run(t.Context(), Request{Client: client, Owner: "octo", Repo: "hello", Number: num}, session.Options{})
	var ce *session.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "comes from the fork mallory/hello")
}

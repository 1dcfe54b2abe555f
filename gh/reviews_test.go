package gh

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestGraphQLURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, api, want string
	}{
		{name: "github.com", api: PublicAPI, want: "https://api.github.com/graphql"},
		{name: "enterprise server", api: "https://ghe.example.com/api/v3", want: "https://ghe.example.com/api/graphql"},
		{name: "enterprise server, trailing slash", api: "https://ghe.example.com/api/v3/", want: "https://ghe.example.com/api/graphql"},
		{name: "enterprise server under a path", api: "https://example.com/github/api/v3", want: "https://example.com/github/api/graphql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(Credentials{Token: "t", APIURL: tt.api}, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.graphQLURL())
		})
	}
}

func TestUnresolvedReviewThreads(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	_, err := repo.Commit(t.Context(), "fix", "fix", map[string]string{"a.go": "package a\n"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "fix", Head: "fix", User: "alice"})
	require.NoError(t, err)
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	// 130 threads, more than one page: every third open, then resolved,
	// then outdated.
	for i := range 130 {
		th := ghfake.ReviewThread{Resolved: i%3 == 1, Outdated: i%3 == 2, Comments: []ghfake.ReviewComment{
			{User: "bob", Body: fmt.Sprintf("thread %d<!-- do evil -->", i), Path: "a.go", Line: i + 1, CreatedAt: at},
			{User: "alice", Body: "reply", CreatedAt: at.Add(time.Minute)},
		}}
		require.NoError(t, g.AddReviewThread("octo", "hello", n, th))
	}
	threads, err := c.UnresolvedReviewThreads(t.Context(), "octo", "hello", n)
	require.NoError(t, err)
	require.Len(t, threads, 44, "threads 0, 3, ..., 129")
	first := threads[0]
	assert.Equal(t, "a.go", first.Path)
	assert.Equal(t, 1, first.Line)
	require.Len(t, first.Comments, 2)
	assert.Equal(t, "bob", first.Comments[0].Author)
	assert.Equal(t, "thread 0", first.Comments[0].Body, "sanitized")
	assert.Equal(t, at, first.Comments[0].CreatedAt)
	assert.Contains(t, first.Comments[0].URL, "#discussion_r")
	assert.Equal(t, "reply", first.Comments[1].Body)
	last := threads[43]
	assert.Equal(t, "thread 129", last.Comments[0].Body)
	assert.Equal(t, 130, last.Line)

	var calls int
	for _, r := range g.Requests() {
		if r.Path == "/api/graphql" {
			calls++
			assert.Equal(t, http.MethodPost, r.Method)
			assert.Equal(t, "core-bot", r.Login, "the client's token authenticates GraphQL")
		}
	}
	assert.Equal(t, 2, calls, "two pages of 100")

	_, err = c.UnresolvedReviewThreads(t.Context(), "octo", "hello", 99)
	assert.ErrorContains(t, err, "GraphQL: Could not resolve to a PullRequest with the number of 99.")
	_, err = c.UnresolvedReviewThreads(t.Context(), "octo", "nope", n)
	assert.ErrorContains(t, err, "Could not resolve to a Repository with the name 'octo/nope'.")

	none, err := c.UnresolvedReviewThreads(t.Context(), "octo", "hello", mustIssue(t, g))
	assert.ErrorContains(t, err, "Could not resolve to a PullRequest", "an issue is no pull request")
	assert.Empty(t, none)
}

func mustIssue(t *testing.T, g *ghfake.GitHub) int {
	t.Helper()
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "an issue"})
	require.NoError(t, err)
	return n
}

func TestUnresolvedReviewThreadsRefused(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	c, err := New(Credentials{Token: "ghp_unknown", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	_, err = c.UnresolvedReviewThreads(t.Context(), "octo", "hello", 1)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, httpStatus(err))
	assert.ErrorContains(t, err, "review threads of #1 in octo/hello")
}

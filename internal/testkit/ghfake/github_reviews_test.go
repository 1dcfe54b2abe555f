package ghfake

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newPullWithThreads adds a pull request to owner/repo with three threads:
// an open one with a reply, a resolved one and an outdated one.
func newPullWithThreads(t *testing.T) (*GitHub, int) {
	t.Helper()
	g, r := newTestGitHub(t, nil)
	_, err := r.Commit(t.Context(), "fix", "fix", map[string]string{"a.go": "package a\n"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "owner", "repo", Pull{Title: "fix", Head: "fix", User: "alice"})
	require.NoError(t, err)
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	threads := []ReviewThread{
		{Comments: []ReviewComment{
			{User: "bob", Body: "rename this", Path: "a.go", Line: 3, CreatedAt: at},
			{User: "alice", Body: "which name?", CreatedAt: at.Add(time.Minute)},
		}},
		{Resolved: true, Comments: []ReviewComment{{User: "bob", Body: "done already", Path: "b.go", Line: 1, CreatedAt: at.Add(2 * time.Minute)}}},
		{Outdated: true, Comments: []ReviewComment{{User: "bob", Body: "old", Path: "c.go", Line: 9, CreatedAt: at.Add(3 * time.Minute)}}},
	}
	for _, th := range threads {
		require.NoError(t, g.AddReviewThread("owner", "repo", n, th))
	}
	return g, n
}

func TestAddReviewThreadValidates(t *testing.T) {
	t.Parallel()
	g, n := newPullWithThreads(t)
	issue, err := g.AddIssue("owner", "repo", Issue{Title: "not a pull"})
	require.NoError(t, err)
	ok := ReviewThread{Comments: []ReviewComment{{Body: "b", Path: "a.go", Line: 1}}}
	tests := []struct {
		name    string
		repo    string
		pull    int
		th      ReviewThread
		wantErr string
	}{
		{name: "valid", repo: "repo", pull: n, th: ok},
		{name: "no repository", repo: "nope", pull: n, th: ok, wantErr: "no such repository"},
		{name: "an issue", repo: "repo", pull: issue, th: ok, wantErr: "no such pull request"},
		{name: "no comments", repo: "repo", pull: n, wantErr: "needs a first comment"},
		{name: "no path", repo: "repo", pull: n, th: ReviewThread{Comments: []ReviewComment{{Body: "b"}}}, wantErr: "with a path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := g.AddReviewThread("owner", tt.repo, tt.pull, tt.th)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
		})
	}
}

func TestGitHubListReviewComments(t *testing.T) {
	t.Parallel()
	g, n := newPullWithThreads(t)
	client := g.Client(t, readerToken)
	cs, _, err := client.PullRequests.ListComments(t.Context(), "owner", "repo", n, nil)
	require.NoError(t, err)
	require.Len(t, cs, 4)
	root, reply, outdated := cs[0], cs[1], cs[3]
	assert.Equal(t, "rename this", root.GetBody())
	assert.Equal(t, "bob", root.GetUser().GetLogin())
	assert.Equal(t, "a.go", root.GetPath())
	assert.Equal(t, 3, root.GetLine())
	assert.Equal(t, 3, root.GetOriginalLine())
	assert.Nil(t, root.InReplyTo, "a thread's root replies to nothing")
	assert.Equal(t, fmt.Sprintf("%s/owner/repo/pull/%d#discussion_r%d", g.URL, n, root.GetID()), root.GetHTMLURL())
	assert.Equal(t, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), root.GetCreatedAt().Time)
	assert.Equal(t, root.GetID(), reply.GetInReplyTo())
	assert.Equal(t, "a.go", reply.GetPath(), "a reply inherits the root's path")
	assert.Equal(t, 3, reply.GetLine())
	assert.Nil(t, outdated.Line, "an outdated comment has no line")
	assert.Equal(t, 9, outdated.GetOriginalLine())

	page, resp, err := client.PullRequests.ListComments(t.Context(), "owner", "repo", n,
		&github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 3, Page: 2}})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, "old", page[0].GetBody())
	assert.Zero(t, resp.NextPage)

	_, resp, err = client.PullRequests.ListComments(t.Context(), "owner", "repo", n+100, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

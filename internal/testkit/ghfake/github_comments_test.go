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

func TestGitHubListCommentsPaginates(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "long thread"})
	require.NoError(t, err)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 150 {
		_, err := g.AddComment("owner", "repo", n, Comment{
			User: "alice", Body: fmt.Sprintf("comment %d", i), CreatedAt: start.Add(time.Duration(i) * time.Minute),
		})
		require.NoError(t, err)
	}
	sinceT := start.Add(140 * time.Minute)
	tests := []struct {
		name                   string
		opts                   github.IssueListCommentsOptions
		wantFirst, wantLen     int
		wantNext, wantLastPage int
	}{
		{name: "first page", opts: github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}, wantFirst: 0, wantLen: 100, wantNext: 2, wantLastPage: 2},
		{name: "second page", opts: github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100, Page: 2}}, wantFirst: 100, wantLen: 50},
		{name: "default page size", wantFirst: 0, wantLen: 30, wantNext: 2, wantLastPage: 5},
		{name: "page size capped at 100", opts: github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 500}}, wantFirst: 0, wantLen: 100, wantNext: 2, wantLastPage: 2},
		{name: "since", opts: github.IssueListCommentsOptions{Since: &sinceT}, wantFirst: 140, wantLen: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, resp, err := g.Client(t, readerToken).Issues.ListComments(t.Context(), "owner", "repo", n, &tt.opts)
			require.NoError(t, err)
			require.Len(t, cs, tt.wantLen)
			assert.Equal(t, fmt.Sprintf("comment %d", tt.wantFirst), cs[0].GetBody())
			assert.Equal(t, tt.wantNext, resp.NextPage)
			assert.Equal(t, tt.wantLastPage, resp.LastPage)
		})
	}
	// All pages, the way a client walks them.
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var all []*github.IssueComment
	for {
		cs, resp, err := g.Client(t, readerToken).Issues.ListComments(t.Context(), "owner", "repo", n, opts)
		require.NoError(t, err)
		all = append(all, cs...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	require.Len(t, all, 150)
	assert.Equal(t, "comment 149", all[149].GetBody())
}

func TestGitHubCreateAndEditComment(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "t", User: "alice"})
	require.NoError(t, err)
	ctx := t.Context()
	bot := g.Client(t, writerToken)
	c, resp, err := bot.Issues.CreateComment(ctx, "owner", "repo", n, &github.IssueComment{Body: github.String("<!-- core:status:1 -->\nworking")})
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "core[bot]", c.GetUser().GetLogin())
	assert.Equal(t, "Bot", c.GetUser().GetType())
	assert.Equal(t, "COLLABORATOR", c.GetAuthorAssociation())
	assert.Equal(t, fmt.Sprintf("%s/owner/repo/issues/%d#issuecomment-%d", g.URL, n, c.GetID()), c.GetHTMLURL())

	got, _, err := bot.Issues.GetComment(ctx, "owner", "repo", c.GetID())
	require.NoError(t, err)
	assert.Equal(t, c.GetBody(), got.GetBody())

	tests := []struct {
		name, token, body string
		wantStatus        int
	}{
		{name: "stranger refused", token: readerToken, body: "hijacked", wantStatus: 403},
		{name: "empty body", token: writerToken, body: "", wantStatus: 422},
		{name: "author edits", token: writerToken, body: "<!-- core:status:1 -->\ndone", wantStatus: 200},
	}
	for _, tt := range tests { // sequential: they edit one comment
		t.Run(tt.name, func(t *testing.T) {
			_, resp, err := g.Client(t, tt.token).Issues.EditComment(ctx, "owner", "repo", c.GetID(), &github.IssueComment{Body: &tt.body})
			require.Equal(t, tt.wantStatus, resp.StatusCode, "err: %v", err)
			want := "<!-- core:status:1 -->\nworking"
			if tt.wantStatus == http.StatusOK {
				want = tt.body
			}
			cs := g.Comments("owner", "repo", n)
			require.Len(t, cs, 1)
			assert.Equal(t, want, cs[0].Body)
		})
	}
	_, resp, err = bot.Issues.GetComment(ctx, "owner", "repo", 424242)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, resp, err = bot.Issues.CreateComment(ctx, "owner", "repo", 99, &github.IssueComment{Body: github.String("x")})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestGitHubDeleteComment(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "t"})
	require.NoError(t, err)
	id, err := g.AddComment("owner", "repo", n, Comment{User: "alice", Body: "x"})
	require.NoError(t, err)
	resp, err := g.Client(t, readerToken).Issues.DeleteComment(t.Context(), "owner", "repo", id)
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Len(t, g.Comments("owner", "repo", n), 1)
	_, err = g.Client(t, ownerToken).Issues.DeleteComment(t.Context(), "owner", "repo", id)
	require.NoError(t, err)
	assert.Empty(t, g.Comments("owner", "repo", n))
}

func TestGitHubReactions(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "t"})
	require.NoError(t, err)
	id, err := g.AddComment("owner", "repo", n, Comment{User: "alice", Body: "/core fix"})
	require.NoError(t, err)
	ctx := t.Context()
	bot := g.Client(t, writerToken)
	tests := []struct {
		name       string
		react      func(content string) (*github.Reaction, *github.Response, error)
		reactions  func() []Reaction
		wantCounts func(t *testing.T)
	}{
		{
			name: "comment",
			react: func(content string) (*github.Reaction, *github.Response, error) {
				return bot.Reactions.CreateIssueCommentReaction(ctx, "owner", "repo", id, content)
			},
			reactions: func() []Reaction { return g.CommentReactions("owner", "repo", id) },
			wantCounts: func(t *testing.T) {
				c, _, err := bot.Issues.GetComment(ctx, "owner", "repo", id)
				require.NoError(t, err)
				assert.Equal(t, 1, c.GetReactions().GetEyes())
				assert.Equal(t, 1, c.GetReactions().GetTotalCount())
			},
		},
		{
			name: "issue",
			react: func(content string) (*github.Reaction, *github.Response, error) {
				return bot.Reactions.CreateIssueReaction(ctx, "owner", "repo", n, content)
			},
			reactions: func() []Reaction { return g.Reactions("owner", "repo", n) },
			wantCounts: func(t *testing.T) {
				is, _, err := bot.Issues.Get(ctx, "owner", "repo", n)
				require.NoError(t, err)
				assert.Equal(t, 1, is.GetReactions().GetEyes())
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, resp, err := tt.react("eyes")
			require.NoError(t, err)
			assert.Equal(t, http.StatusCreated, resp.StatusCode)
			assert.Equal(t, "eyes", r.GetContent())
			assert.Equal(t, "core[bot]", r.GetUser().GetLogin())
			again, resp, err := tt.react("eyes")
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, resp.StatusCode, "a repeated reaction is not created again")
			assert.Equal(t, r.GetID(), again.GetID())
			_, resp, err = tt.react("thumbsup")
			require.Error(t, err)
			assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
			got := tt.reactions()
			require.Len(t, got, 1)
			assert.Equal(t, Reaction{ID: r.GetID(), User: "core[bot]", Content: "eyes", CreatedAt: got[0].CreatedAt}, got[0])
			tt.wantCounts(t)
		})
	}
}

// SetCommentTime dates a comment as GitHub would show it (whole seconds),
// and since finds it by that time.
func TestGitHubSetCommentTime(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "old news"})
	require.NoError(t, err)
	id, err := g.AddComment("owner", "repo", n, Comment{User: "alice", Body: "written long ago"})
	require.NoError(t, err)
	at := time.Date(2024, 1, 1, 9, 0, 0, 700, time.UTC)
	require.NoError(t, g.SetCommentTime("owner", "repo", id, at))
	c, _, err := g.Client(t, readerToken).Issues.GetComment(t.Context(), "owner", "repo", id)
	require.NoError(t, err)
	assert.Equal(t, at.Truncate(time.Second), c.GetCreatedAt().Time)
	assert.Equal(t, at.Truncate(time.Second), c.GetUpdatedAt().Time)
	since := at.Add(time.Minute)
	cs, _, err := g.Client(t, readerToken).Issues.ListComments(t.Context(), "owner", "repo", n, &github.IssueListCommentsOptions{Since: &since})
	require.NoError(t, err)
	assert.Empty(t, cs, "older than since")
	assert.ErrorContains(t, g.SetCommentTime("owner", "repo", id+100, at), "no such comment")
}

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

func TestGitHubGetIssue(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	created := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	issue, err := g.AddIssue("owner", "repo", Issue{
		Title: "Crash on start", Body: "It crashes.", User: "alice", Labels: []string{"bug", "core"},
		CreatedAt: created,
	})
	require.NoError(t, err)
	_, err = r.Commit(t.Context(), "feature", "Feature", map[string]string{"f.txt": "f"})
	require.NoError(t, err)
	pull, err := g.AddPull(t.Context(), "owner", "repo", Pull{Title: "Add feature", User: "bob", Head: "feature"})
	require.NoError(t, err)
	assert.Equal(t, issue+1, pull, "issues and pull requests share one number space")
	tests := []struct {
		name     string
		number   int
		wantUser string
		wantPR   bool
		wantHTML string
	}{
		{name: "issue", number: issue, wantUser: "alice", wantHTML: fmt.Sprintf("%s/owner/repo/issues/%d", g.URL, issue)},
		{name: "pull request", number: pull, wantUser: "bob", wantPR: true, wantHTML: fmt.Sprintf("%s/owner/repo/pull/%d", g.URL, pull)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := g.Client(t, readerToken).Issues.Get(t.Context(), "owner", "repo", tt.number)
			require.NoError(t, err)
			assert.Equal(t, tt.number, got.GetNumber())
			assert.Equal(t, tt.wantUser, got.GetUser().GetLogin())
			assert.Equal(t, "User", got.GetUser().GetType())
			assert.Equal(t, "open", got.GetState())
			assert.Equal(t, tt.wantPR, got.IsPullRequest())
			assert.Equal(t, tt.wantHTML, got.GetHTMLURL())
		})
	}
	got, _, err := g.Client(t, readerToken).Issues.Get(t.Context(), "owner", "repo", issue)
	require.NoError(t, err)
	assert.Equal(t, "It crashes.", got.GetBody())
	assert.Equal(t, created, got.GetCreatedAt().Time)
	assert.Equal(t, created, got.GetUpdatedAt().Time)
	assert.Equal(t, []string{"bug", "core"}, labelNames(got.Labels))
	_, resp, err := g.Client(t, readerToken).Issues.Get(t.Context(), "owner", "repo", 99)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func labelNames(labels []*github.Label) []string {
	var out []string
	for _, l := range labels {
		out = append(out, l.GetName())
	}
	return out
}

func TestGitHubListIssues(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	add := func(is Issue) int {
		n, err := g.AddIssue("owner", "repo", is)
		require.NoError(t, err)
		return n
	}
	oldBrief := add(Issue{Title: "old brief", Labels: []string{"forge", "brief"}, CreatedAt: day(1)})
	newBrief := add(Issue{Title: "new brief", Labels: []string{"brief", "forge"}, CreatedAt: day(3)})
	bug := add(Issue{Title: "bug", Labels: []string{"bug"}, CreatedAt: day(2)})
	closed := add(Issue{Title: "done", Labels: []string{"forge"}, State: "closed", CreatedAt: day(4)})
	_, err := r.Commit(t.Context(), "feature", "Feature", map[string]string{"f.txt": "f"})
	require.NoError(t, err)
	pull, err := g.AddPull(t.Context(), "owner", "repo", Pull{Title: "pr", Head: "feature", CreatedAt: day(5)})
	require.NoError(t, err)
	tests := []struct {
		name string
		opts github.IssueListByRepoOptions
		want []int
	}{
		{name: "open, newest first, pull requests included", want: []int{pull, newBrief, bug, oldBrief}},
		{name: "by labels, oldest first", opts: github.IssueListByRepoOptions{Labels: []string{"forge", "brief"}, Sort: "created", Direction: "asc"}, want: []int{oldBrief, newBrief}},
		{name: "closed", opts: github.IssueListByRepoOptions{State: "closed"}, want: []int{closed}},
		{name: "all with label", opts: github.IssueListByRepoOptions{State: "all", Labels: []string{"forge"}}, want: []int{closed, newBrief, oldBrief}},
		{name: "no match", opts: github.IssueListByRepoOptions{Labels: []string{"nope"}}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			issues, _, err := g.Client(t, readerToken).Issues.ListByRepo(t.Context(), "owner", "repo", &tt.opts)
			require.NoError(t, err)
			var got []int
			for _, is := range issues {
				got = append(got, is.GetNumber())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestGitHubCreateIssue(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	tests := []struct {
		name, token, title string
		wantStatus         int
		wantLabels         []string
	}{
		{name: "writer keeps labels", token: writerToken, title: "found a bug", wantStatus: 201, wantLabels: []string{"bug"}},
		{name: "reader loses labels", token: readerToken, title: "another bug", wantStatus: 201},
		{name: "no title", token: writerToken, wantStatus: 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is, resp, err := g.Client(t, tt.token).Issues.Create(t.Context(), "owner", "repo",
				&github.IssueRequest{Title: &tt.title, Body: github.String("details"), Labels: &[]string{"bug"}})
			require.Equal(t, tt.wantStatus, resp.StatusCode, "err: %v", err)
			if tt.wantStatus != http.StatusCreated {
				assert.Equal(t, "missing_field", errorResponse(t, err).Errors[0].Code)
				return
			}
			require.NoError(t, err)
			stored, ok := g.Issue("owner", "repo", is.GetNumber())
			require.True(t, ok)
			assert.Equal(t, tt.title, stored.Title)
			assert.Equal(t, tt.wantLabels, stored.Labels)
			assert.Equal(t, "details", stored.Body)
		})
	}
}

func TestGitHubEditIssue(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "t", User: "alice"})
	require.NoError(t, err)
	tests := []struct {
		name, token string
		wantStatus  int
	}{
		{name: "stranger refused", token: readerToken, wantStatus: 403},
		{name: "writer closes", token: writerToken, wantStatus: 200},
	}
	for _, tt := range tests { // sequential: the second edit changes the issue
		t.Run(tt.name, func(t *testing.T) {
			_, resp, err := g.Client(t, tt.token).Issues.Edit(t.Context(), "owner", "repo", n,
				&github.IssueRequest{State: github.String("closed"), Title: github.String("t2")})
			require.Equal(t, tt.wantStatus, resp.StatusCode, "err: %v", err)
			is, _ := g.Issue("owner", "repo", n)
			if tt.wantStatus != http.StatusOK {
				assert.Equal(t, "open", is.State)
				return
			}
			assert.Equal(t, "closed", is.State)
			assert.Equal(t, "t2", is.Title)
			assert.False(t, is.ClosedAt.IsZero())
		})
	}
}

func TestGitHubLabels(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "t", Labels: []string{"core"}})
	require.NoError(t, err)
	ctx := t.Context()
	writer := g.Client(t, writerToken)
	labels, _, err := writer.Issues.AddLabelsToIssue(ctx, "owner", "repo", n, []string{"core:claimed", "core"})
	require.NoError(t, err)
	assert.Equal(t, []string{"core", "core:claimed"}, labelNames(labels))
	listed, _, err := writer.Issues.ListByRepo(ctx, "owner", "repo", &github.IssueListByRepoOptions{Labels: []string{"core:claimed"}})
	require.NoError(t, err)
	require.Len(t, listed, 1)
	assert.Equal(t, n, listed[0].GetNumber())

	_, err = writer.Issues.RemoveLabelForIssue(ctx, "owner", "repo", n, "core")
	require.NoError(t, err)
	is, _ := g.Issue("owner", "repo", n)
	assert.Equal(t, []string{"core:claimed"}, is.Labels)

	resp, err := writer.Issues.RemoveLabelForIssue(ctx, "owner", "repo", n, "core")
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "Label does not exist", errorResponse(t, err).Message)

	_, resp, err = g.Client(t, readerToken).Issues.AddLabelsToIssue(ctx, "owner", "repo", n, []string{"x"})
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, err = g.Client(t, readerToken).Issues.RemoveLabelForIssue(ctx, "owner", "repo", n, "core:claimed")
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	is, _ = g.Issue("owner", "repo", n)
	assert.Equal(t, []string{"core:claimed"}, is.Labels, "a refused change changed the labels")
}

package ghfake

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitHubListPulls(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	fork := g.MustAddRepo(t, "forker", "repo", nil, ForkOf("owner/repo"))
	add := func(repo *Repo, branch, headRepo, state string) int {
		_, err := repo.Commit(t.Context(), branch, "c", map[string]string{branch + ".txt": "x"})
		require.NoError(t, err)
		n, err := g.AddPull(t.Context(), "owner", "repo", Pull{Title: branch, Head: branch, HeadRepo: headRepo, State: state})
		require.NoError(t, err)
		return n
	}
	a := add(r, "a", "", "open")
	b := add(r, "b", "", "open")
	forked := add(fork, "a", "forker/repo", "open")
	closed := add(r, "c", "", "closed")
	_, err := r.Commit(t.Context(), "release", "c", nil)
	require.NoError(t, err)
	onRelease, err := g.AddPull(t.Context(), "owner", "repo", Pull{Title: "r", Head: "b", Base: "release"})
	require.NoError(t, err)
	tests := []struct {
		name string
		opts github.PullRequestListOptions
		want []int
	}{
		{name: "open, newest first", want: []int{onRelease, forked, b, a}},
		{name: "by head", opts: github.PullRequestListOptions{Head: "owner:a"}, want: []int{a}},
		{name: "by fork head", opts: github.PullRequestListOptions{Head: "forker:a"}, want: []int{forked}},
		{name: "head without owner is ignored, as on GitHub", opts: github.PullRequestListOptions{Head: "a"}, want: []int{onRelease, forked, b, a}},
		{name: "by head and base", opts: github.PullRequestListOptions{Head: "owner:b", Base: "main"}, want: []int{b}},
		{name: "closed", opts: github.PullRequestListOptions{State: "closed"}, want: []int{closed}},
		{name: "all, oldest first", opts: github.PullRequestListOptions{State: "all", Direction: "asc"}, want: []int{a, b, forked, closed, onRelease}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps, _, err := g.Client(t, readerToken).PullRequests.List(t.Context(), "owner", "repo", &tt.opts)
			require.NoError(t, err)
			var got []int
			for _, p := range ps {
				got = append(got, p.GetNumber())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestGitHubEditPull(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	_, err := r.Commit(t.Context(), "f", "c", map[string]string{"f": "f"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "owner", "repo", Pull{Title: "t", Body: "old", User: "core[bot]", Head: "f", Draft: true})
	require.NoError(t, err)
	tests := []struct {
		name, token string
		edit        github.PullRequest
		wantStatus  int
		wantBody    string
		wantState   string
	}{
		{name: "stranger refused", token: readerToken, edit: github.PullRequest{Body: github.String("x")}, wantStatus: 403, wantBody: "old", wantState: "open"},
		{name: "author edits body", token: writerToken, edit: github.PullRequest{Body: github.String("new")}, wantStatus: 200, wantBody: "new", wantState: "open"},
		{name: "owner closes", token: ownerToken, edit: github.PullRequest{State: github.String("closed")}, wantStatus: 200, wantBody: "new", wantState: "closed"},
	}
	for _, tt := range tests { // sequential: each edit builds on the last
		t.Run(tt.name, func(t *testing.T) {
			_, resp, err := g.Client(t, tt.token).PullRequests.Edit(t.Context(), "owner", "repo", n, &tt.edit)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "err: %v", err)
			ps := g.Pulls("owner", "repo")
			require.Len(t, ps, 1)
			assert.Equal(t, tt.wantBody, ps[0].Body)
			assert.Equal(t, tt.wantState, ps[0].State)
			assert.True(t, ps[0].Draft)
		})
	}
	_, resp, err := g.Client(t, ownerToken).PullRequests.Get(t.Context(), "owner", "repo", 99)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestAddPullErrors(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	tests := []struct {
		name    string
		pull    Pull
		wantErr string
	}{
		{name: "head missing", pull: Pull{Head: "nope"}, wantErr: `head branch "nope"`},
		{name: "base missing", pull: Pull{Head: "main", Base: "nope"}, wantErr: `base branch "nope"`},
		{name: "head repo missing", pull: Pull{Head: "main", HeadRepo: "x/y"}, wantErr: "x/y does not exist"},
		{name: "bad state", pull: Pull{Head: "main", State: "merged"}, wantErr: "merged"},
		{name: "merged but open", pull: Pull{Head: "main", Merged: true}, wantErr: "a merged pull request is closed, not open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := g.AddPull(t.Context(), "owner", "repo", tt.pull)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// TestMergedPull: a merged pull request is closed, merged, with merged_at
// its closing time; a closed one is not merged.
func TestMergedPull(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	_, err := r.Commit(t.Context(), "topic", "c", map[string]string{"t.txt": "x"})
	require.NoError(t, err)
	merged, err := g.AddPull(t.Context(), "owner", "repo", Pull{Head: "topic", State: "closed", Merged: true})
	require.NoError(t, err)
	closed, err := g.AddPull(t.Context(), "owner", "repo", Pull{Head: "topic", State: "closed"})
	require.NoError(t, err)
	p, _, err := g.Client(t, ownerToken).PullRequests.Get(t.Context(), "owner", "repo", merged)
	require.NoError(t, err)
	assert.Equal(t, "closed", p.GetState())
	assert.True(t, p.GetMerged())
	require.NotNil(t, p.MergedAt)
	assert.Equal(t, p.GetClosedAt(), p.GetMergedAt())
	p, _, err = g.Client(t, ownerToken).PullRequests.Get(t.Context(), "owner", "repo", closed)
	require.NoError(t, err)
	assert.False(t, p.GetMerged())
	assert.Nil(t, p.MergedAt)
}

package ghfake

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newPull(head, base string, draft bool) *github.NewPullRequest {
	return &github.NewPullRequest{
		Title: github.String("Fix the crash"), Body: github.String("Fixes #1"),
		Head: &head, Base: &base, Draft: &draft,
	}
}

func TestGitHubDraftPullFromPushedBranch(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	sha := newGitClient(t, headerEnv("http.extraHeader", writerToken)...).cloneAndPush(r, "core/fix-1")
	client := g.Client(t, writerToken)

	// The wire body, as any client sees it, says draft: true.
	req, err := client.NewRequest(http.MethodPost, "repos/owner/repo/pulls", newPull("core/fix-1", "main", true))
	require.NoError(t, err)
	resp, err := client.BareDo(t.Context(), req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(raw, &wire))
	assert.Equal(t, true, wire["draft"])
	number := int(wire["number"].(float64))

	p, _, err := client.PullRequests.Get(t.Context(), "owner", "repo", number)
	require.NoError(t, err)
	assert.True(t, p.GetDraft())
	assert.Equal(t, "open", p.GetState())
	assert.Equal(t, "core[bot]", p.GetUser().GetLogin())
	assert.Equal(t, "core/fix-1", p.GetHead().GetRef())
	assert.Equal(t, sha, p.GetHead().GetSHA())
	assert.Equal(t, "owner/repo", p.GetHead().GetRepo().GetFullName())
	assert.Equal(t, r.CloneURL(), p.GetHead().GetRepo().GetCloneURL())
	assert.Equal(t, "main", p.GetBase().GetRef())
	assert.Equal(t, g.URL+"/owner/repo/pull/1", p.GetHTMLURL())
	assert.Equal(t, []Pull{{
		Number: 1, Title: "Fix the crash", Body: "Fixes #1", User: "core[bot]", Head: "core/fix-1",
		HeadRepo: "owner/repo", Base: "main", Draft: true, State: "open", HeadSHA: sha,
		CreatedAt: p.GetCreatedAt().Time, UpdatedAt: p.GetUpdatedAt().Time,
	}}, g.Pulls("owner", "repo"))

	// A later push moves head.sha.
	newSHA, err := r.Commit(t.Context(), "core/fix-1", "More", map[string]string{"more.txt": "m"})
	require.NoError(t, err)
	p, _, err = client.PullRequests.Get(t.Context(), "owner", "repo", number)
	require.NoError(t, err)
	assert.Equal(t, newSHA, p.GetHead().GetSHA())
}

func TestGitHubCreatePullErrors(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	_, err := r.Commit(t.Context(), "taken", "Taken", map[string]string{"t.txt": "t"})
	require.NoError(t, err)
	_, err = g.AddPull(t.Context(), "owner", "repo", Pull{Title: "first", Head: "taken"})
	require.NoError(t, err)
	_, err = r.Commit(t.Context(), "same-as-main", "x", nil)
	require.NoError(t, err)
	tests := []struct {
		name        string
		pull        *github.NewPullRequest
		wantField   string
		wantCode    string
		wantMessage string
	}{
		{name: "already open", pull: newPull("taken", "main", true), wantCode: "custom", wantMessage: "A pull request already exists for owner:taken."},
		{name: "already open, owner-qualified head", pull: newPull("owner:taken", "main", false), wantCode: "custom", wantMessage: "A pull request already exists for owner:taken."},
		{name: "head branch missing", pull: newPull("nope", "main", true), wantField: "head", wantCode: "invalid"},
		{name: "base branch missing", pull: newPull("taken", "nope", true), wantField: "base", wantCode: "invalid"},
		{name: "head is base", pull: newPull("main", "main", true), wantCode: "custom", wantMessage: "No commits between main and main"},
		{name: "no title", pull: &github.NewPullRequest{Head: github.String("taken"), Base: github.String("main")}, wantField: "title", wantCode: "missing_field"},
		{name: "unknown fork owner", pull: newPull("stranger:taken", "main", true), wantField: "head", wantCode: "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, resp, err := g.Client(t, writerToken).PullRequests.Create(t.Context(), "owner", "repo", tt.pull)
			require.Error(t, err)
			assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
			er := errorResponse(t, err)
			assert.Equal(t, "Validation Failed", er.Message)
			require.Len(t, er.Errors, 1)
			assert.Equal(t, github.Error{Resource: "PullRequest", Field: tt.wantField, Code: tt.wantCode, Message: tt.wantMessage}, er.Errors[0])
			if tt.wantMessage != "" {
				assert.Contains(t, err.Error(), tt.wantMessage, "go-github does not surface the message")
			}
		})
	}
	assert.Len(t, g.Pulls("owner", "repo"), 1, "a refused pull request was stored")
}

func TestGitHubForkPull(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	g.AddToken("ghp_forker", "forker")
	fork := g.MustAddRepo(t, "forker", "repo", nil, ForkOf("owner/repo"))
	sha := newGitClient(t, headerEnv("http.extraHeader", "ghp_forker")...).cloneAndPush(fork, "patch")
	p, _, err := g.Client(t, "ghp_forker").PullRequests.Create(t.Context(), "owner", "repo", newPull("forker:patch", "main", false))
	require.NoError(t, err)
	assert.False(t, p.GetDraft())
	assert.Equal(t, "forker:patch", p.GetHead().GetLabel())
	assert.Equal(t, "forker/repo", p.GetHead().GetRepo().GetFullName())
	assert.Equal(t, fork.CloneURL(), p.GetHead().GetRepo().GetCloneURL())
	assert.True(t, p.GetHead().GetRepo().GetFork())
	assert.Equal(t, sha, p.GetHead().GetSHA())
	assert.Equal(t, "owner/repo", p.GetBase().GetRepo().GetFullName())
	assert.NotEqual(t, p.GetHead().GetRepo().GetFullName(), p.GetBase().GetRepo().GetFullName())

	// The same branch name in the base repository is another head.
	_, _, err = g.Client(t, "ghp_forker").PullRequests.Create(t.Context(), "owner", "repo", newPull("forker:patch", "main", false))
	assert.ErrorContains(t, err, "A pull request already exists for forker:patch.")
}

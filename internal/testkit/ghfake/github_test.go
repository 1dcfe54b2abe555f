package ghfake

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

const (
	ownerToken  = "ghp_owner"
	writerToken = "ghs_writer"
	readerToken = "ghp_reader"
)

// newTestGitHub starts a GitHub with owner/repo (owned by "owner"), a
// writer ("core[bot]", write) and a reader ("reader", no role).
func newTestGitHub(t *testing.T, files map[string]string) (*GitHub, *Repo) {
	t.Helper()
	g := NewGitHub(t)
	g.AddToken(ownerToken, "owner")
	g.AddToken(writerToken, "core[bot]")
	g.AddToken(readerToken, "reader")
	if files == nil {
		files = map[string]string{"README.md": "# repo\n", "go.mod": "module example.com/repo\n"}
	}
	r := g.MustAddRepo(t, "owner", "repo", files)
	require.NoError(t, g.SetPermission("owner", "repo", "core[bot]", "write"))
	return g, r
}

// errorResponse unwraps go-github's error for a GitHub error body.
func errorResponse(t *testing.T, err error) *github.ErrorResponse {
	t.Helper()
	var er *github.ErrorResponse
	require.True(t, errors.As(err, &er), "want a *github.ErrorResponse, got %T: %v", err, err)
	return er
}

func TestGitHubAuthentication(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	tests := []struct {
		name      string
		token     string
		bare      bool // BaseURL without /api/v3
		wantLogin string
		wantError string
	}{
		{name: "known token", token: writerToken, wantLogin: "core[bot]"},
		{name: "bare paths", token: ownerToken, bare: true, wantLogin: "owner"},
		{name: "unknown token", token: "ghp_nope", wantError: "Bad credentials"},
		{name: "no token", wantError: "Requires authentication"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := g.Client(t, tt.token)
			if tt.bare {
				client.BaseURL.Path = "/"
			}
			user, resp, err := client.Users.Get(t.Context(), "")
			if tt.wantError != "" {
				require.Error(t, err)
				assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
				assert.Equal(t, tt.wantError, errorResponse(t, err).Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantLogin, user.GetLogin())
			wantType := "User"
			if strings.HasSuffix(tt.wantLogin, "[bot]") {
				wantType = "Bot"
			}
			assert.Equal(t, wantType, user.GetType())
		})
	}
}

func TestGitHubResponseHeaders(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	_, resp, err := g.Client(t, ownerToken).Repositories.Get(t.Context(), "owner", "repo")
	require.NoError(t, err)
	assert.Equal(t, 5000, resp.Rate.Limit)
	assert.Positive(t, resp.Rate.Remaining)
	assert.True(t, resp.Rate.Reset.After(time.Now()), "reset %v is not in the future", resp.Rate.Reset)
	assert.NotEmpty(t, resp.Header.Get("X-GitHub-Request-Id"))
	_, resp2, err := g.Client(t, ownerToken).Repositories.Get(t.Context(), "owner", "repo")
	require.NoError(t, err)
	assert.NotEqual(t, resp.Header.Get("X-GitHub-Request-Id"), resp2.Header.Get("X-GitHub-Request-Id"))
}

func TestGitHubUnknownEndpoint(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	client := g.Client(t, ownerToken)
	tests := []struct {
		name   string
		method string
		path   string
	}{
		{name: "unknown path", method: http.MethodGet, path: "repos/owner/repo/git/refs/heads/main"},
		{name: "unknown method", method: http.MethodPut, path: "repos/owner/repo/issues/1"},
		{name: "unknown repository", method: http.MethodGet, path: "repos/owner/missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := client.NewRequest(tt.method, tt.path, nil)
			require.NoError(t, err)
			resp, err := client.Do(t.Context(), req, nil)
			require.Error(t, err)
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
			er := errorResponse(t, err)
			assert.Equal(t, "Not Found", er.Message)
			assert.NotEmpty(t, er.DocumentationURL)
			var found bool
			for _, r := range g.Requests() {
				if r.Method == tt.method && r.Path == "/"+tt.path {
					found = true
					assert.Equal(t, http.StatusNotFound, r.Status)
					assert.Equal(t, "owner", r.Login)
				}
			}
			assert.True(t, found, "request %s /%s not recorded", tt.method, tt.path)
		})
	}
}

func TestGitHubRecordsRequests(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "bug"})
	require.NoError(t, err)
	_, _, err = g.Client(t, writerToken).Issues.CreateComment(t.Context(), "owner", "repo", n,
		&github.IssueComment{Body: github.String("on it")})
	require.NoError(t, err)
	reqs := g.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/repos/owner/repo/issues/1/comments", r.Path)
	assert.JSONEq(t, `{"body":"on it"}`, string(r.Body))
	assert.Equal(t, "Bearer "+writerToken, r.Header.Get("Authorization"))
	assert.Equal(t, "core[bot]", r.Login)
	assert.Equal(t, http.StatusCreated, r.Status)
}

func TestServeGitHub(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g, err := ServeGitHub(ctx, "127.0.0.1:0")
	require.NoError(t, err)
	g.AddToken(ownerToken, "owner")
	r, err := g.AddRepo(ctx, "owner", "repo", map[string]string{"a.txt": "a\n"})
	require.NoError(t, err)
	repo, _, err := g.Client(t, ownerToken).Repositories.Get(t.Context(), "owner", "repo")
	require.NoError(t, err)
	assert.Equal(t, r.CloneURL(), repo.GetCloneURL())
	dir := r.Dir()
	cancel()
	require.Eventually(t, func() bool {
		_, err := http.Get(g.URL + "/user")
		_, statErr := os.Stat(dir)
		return err != nil && errors.Is(statErr, os.ErrNotExist)
	}, testkit.Patience, 10*time.Millisecond, "server still answering or repositories not removed after ctx ended")

	_, err = ServeGitHub(t.Context(), "256.0.0.1:0")
	assert.ErrorContains(t, err, "256.0.0.1:0")
}

// TestGitHubOutage: FailAPI makes every API request answer the status with
// GitHub's error body, git still serves, and FailAPI(0) ends it.
func TestGitHubOutage(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	client := g.Client(t, ownerToken)
	g.FailAPI(http.StatusBadGateway)
	_, resp, err := client.Repositories.Get(t.Context(), "owner", "repo")
	require.Error(t, err)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Equal(t, "Bad Gateway", errorResponse(t, err).Message)
	reqs := g.Requests()
	require.NotEmpty(t, reqs)
	assert.Equal(t, http.StatusBadGateway, reqs[len(reqs)-1].Status, "the failed request is recorded")

	gitResp, err := http.Get(g.URL + "/git/owner/repo.git/info/refs?service=git-upload-pack")
	require.NoError(t, err)
	gitResp.Body.Close()
	assert.NotEqual(t, http.StatusBadGateway, gitResp.StatusCode, "git over HTTP is not part of the API's outage")

	g.FailAPI(0)
	repo, _, err := client.Repositories.Get(t.Context(), "owner", "repo")
	require.NoError(t, err)
	assert.Equal(t, "repo", repo.GetName())

	// One part of the API down: the rest answers.
	g.FailAPI(http.StatusServiceUnavailable, "/repos/owner/repo/issues")
	_, resp, err = client.Issues.Get(t.Context(), "owner", "repo", 1)
	require.Error(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	_, _, err = client.Repositories.Get(t.Context(), "owner", "repo")
	assert.NoError(t, err)
}

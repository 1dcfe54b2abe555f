package gh

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestCredentialsFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    Credentials
		wantErr string
	}{
		{name: "github token", env: map[string]string{"GITHUB_TOKEN": "a"}, want: Credentials{Token: "a", APIURL: PublicAPI}},
		{name: "gh token", env: map[string]string{"GH_TOKEN": "b"}, want: Credentials{Token: "b", APIURL: PublicAPI}},
		{name: "github token wins", env: map[string]string{"GITHUB_TOKEN": "a", "GH_TOKEN": "b"}, want: Credentials{Token: "a", APIURL: PublicAPI}},
		{name: "enterprise", env: map[string]string{"GITHUB_TOKEN": "a", "GITHUB_API_URL": "https://ghe.example.com/api/v3"}, want: Credentials{Token: "a", APIURL: "https://ghe.example.com/api/v3"}},
		{name: "no token", env: map[string]string{"GITHUB_API_URL": PublicAPI}, wantErr: "set GITHUB_TOKEN or GH_TOKEN"},
		{name: "blank token", env: map[string]string{"GITHUB_TOKEN": "  "}, wantErr: "set GITHUB_TOKEN or GH_TOKEN"},
		{name: "bad api url", env: map[string]string{"GITHUB_TOKEN": "a", "GITHUB_API_URL": "ghe.example.com"}, wantErr: "GITHUB_API_URL must be an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := CredentialsFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseRepo(t *testing.T) {
	t.Parallel()
	for in, ok := range map[string]bool{
		"octo/hello": true, "octo-cat/hello.go": true, "o/r.git": true,
		"octo": false, "octo/": false, "/hello": false, "a/b/c": false, "octo/..": false, "-x/y": false, "./x": false,
	} {
		_, _, err := ParseRepo(in)
		assert.Equal(t, ok, err == nil, in)
	}
}

const token = "ghs_UnitTestToken42"

func newTestClient(t *testing.T) (*Client, *ghfake.GitHub, *ghfake.Repo) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.AddToken(token, "core-bot")
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"a.txt": "a\n"}, ghfake.Private(true))
	require.NoError(t, g.SetPermission("octo", "hello", "core-bot", "write"))
	c, err := New(Credentials{Token: token, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	return c, g, repo
}

func TestGitEnvAuthenticatesGit(t *testing.T) {
	t.Parallel()
	c, _, repo := newTestClient(t)
	dir := filepath.Join(t.TempDir(), "clone")
	git := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1"}, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := git(nil, "clone", "--quiet", repo.CloneURL(), dir)
	require.Error(t, err, "a private repository needs the token")
	assert.NotContains(t, out, token)

	env, err := c.GitEnv(t.Context(), repo.CloneURL())
	require.NoError(t, err)
	_, err = git(env, "clone", "--quiet", "--filter=blob:none", repo.CloneURL(), dir)
	require.NoError(t, err)
	config, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	require.NoError(t, err)
	for _, s := range c.Secrets() {
		assert.NotContains(t, string(config), s)
	}
	assert.Contains(t, env[2], "Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token)))
	assert.True(t, strings.HasPrefix(env[1], "GIT_CONFIG_KEY_0=http.http://127.0.0.1:"), env[1])

	// Scoped to its host: the header is not sent elsewhere.
	elsewhere := []string{env[0], "GIT_CONFIG_KEY_0=http.https://elsewhere.example/.extraHeader", env[2]}
	_, err = git(elsewhere, "clone", "--quiet", repo.CloneURL(), filepath.Join(t.TempDir(), "clone2"))
	assert.Error(t, err, "a header scoped to another host does not authenticate here")
}

func TestIssueWithComments(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "Bug\u200b", Body: "body<!-- hidden -->", User: "alice"})
	require.NoError(t, err)
	start := time.Now()
	for i := range 120 {
		_, err := g.AddComment("octo", "hello", n, ghfake.Comment{User: "bob", Body: "c" + strings.Repeat("x", i%3), CreatedAt: start.Add(-time.Hour)})
		require.NoError(t, err)
	}
	_, err = g.AddComment("octo", "hello", n, ghfake.Comment{User: "eve", Body: "late", CreatedAt: start.Add(time.Minute)})
	require.NoError(t, err)
	_, err = g.AddComment("octo", "hello", n, ghfake.Comment{User: "eve", Body: "edited later", CreatedAt: start.Add(-time.Hour), UpdatedAt: start.Add(time.Minute)})
	require.NoError(t, err)

	is, err := c.Issue(t.Context(), "octo", "hello", n, start)
	require.NoError(t, err)
	assert.Equal(t, "Bug", is.Title)
	assert.Equal(t, "body", is.Body)
	assert.Len(t, is.Comments, 120, "both pages read; the late and the edited comment left out")
	text := is.Instruction()
	assert.True(t, strings.HasPrefix(text, "Issue #1: Bug\n\nbody\n\nComment by @bob:\nc"), text)
	assert.NotContains(t, text, "late")

	_, err = c.Issue(t.Context(), "octo", "hello", 99, start)
	assert.ErrorContains(t, err, "issue #99 not found in octo/hello")
}

func TestPermission(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	for _, role := range []string{"admin", "maintain", "write", "triage", "read"} {
		require.NoError(t, g.SetPermission("octo", "hello", "user-"+role, role))
	}
	tests := []struct {
		login, want string
		write       bool
	}{
		{"user-admin", "admin", true}, {"user-maintain", "maintain", true}, {"user-write", "write", true},
		{"user-triage", "triage", false}, {"user-read", "read", false}, {"stranger", "none", false},
	}
	for _, tt := range tests {
		got, err := c.Permission(context.Background(), "octo", "hello", tt.login)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.login)
		assert.Equal(t, tt.write, CanWrite(got), tt.login)
	}
}

func TestRepoAndPulls(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	r, err := c.Repo(t.Context(), "octo", "hello")
	require.NoError(t, err)
	assert.Equal(t, repo.CloneURL(), r.CloneURL)
	assert.Equal(t, "main", r.DefaultBranch)
	assert.True(t, r.Private)

	_, err = c.Repo(t.Context(), "octo", "nope")
	assert.ErrorContains(t, err, "not found, or not reachable with this token")
	_, err = c.BranchSHA(t.Context(), "octo", "hello", "nope")
	assert.ErrorContains(t, err, `branch "nope" not found`)

	_, err = repo.Commit(t.Context(), "fix", "a fix", map[string]string{"a.txt": "b\n"})
	require.NoError(t, err)
	pr, err := c.CreatePullRequest(t.Context(), "octo", "hello", NewPullRequest{Title: "t", Body: "b", Head: "fix", Base: "main", Draft: true})
	require.NoError(t, err)
	assert.True(t, pr.Draft)
	assert.False(t, pr.Fork("octo", "hello"))
	_, err = c.CreatePullRequest(t.Context(), "octo", "hello", NewPullRequest{Title: "t", Head: "fix", Base: "main"})
	assert.ErrorContains(t, err, "A pull request already exists")
	open, err := c.OpenPullRequests(t.Context(), "octo", "hello")
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, "fix", open[0].HeadRef)
	require.NoError(t, c.EditPullRequestBody(t.Context(), "octo", "hello", pr.Number, "new body"))
	assert.Equal(t, "new body", g.Pulls("octo", "hello")[0].Body)

	id, _, err := c.CreateComment(t.Context(), "octo", "hello", pr.Number, "first")
	require.NoError(t, err)
	require.NoError(t, c.EditComment(t.Context(), "octo", "hello", id, "second"))
	assert.Equal(t, "second", g.Comments("octo", "hello", pr.Number)[0].Body)

	url, err := c.FileIssue(t.Context(), "octo", "hello", "found a bug", "details")
	require.NoError(t, err)
	assert.Contains(t, url, "/octo/hello/issues/")
}

func TestNewGivesAPICallsATimeout(t *testing.T) {
	t.Parallel()
	transport := &http.Transport{}
	tests := []struct {
		name string
		hc   *http.Client
		want time.Duration
	}{
		{name: "no client", hc: nil, want: APITimeout},
		{name: "a client without a timeout", hc: &http.Client{Transport: transport}, want: APITimeout},
		{name: "a client with its own timeout", hc: &http.Client{Timeout: time.Second}, want: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(Credentials{Token: "t", APIURL: PublicAPI}, tt.hc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.GitHub().Client().Timeout)
			if tt.hc != nil && tt.hc.Transport != nil {
				assert.Zero(t, tt.hc.Timeout, "the caller's client is not changed")
			}
		})
	}
}

// TestTokenSourceIsAskedEachTime: git gets the source's token of the
// moment, and every token handed out is a secret.
func TestTokenSourceIsAskedEachTime(t *testing.T) {
	t.Parallel()
	n := 0
	c := WithTokens(github.NewClient(nil), func(context.Context) (string, error) {
		n++
		return fmt.Sprintf("ghs_token%d", n), nil
	})
	for want := 1; want <= 2; want++ {
		env, err := c.GitEnv(t.Context(), "https://github.com/octo/hello.git")
		require.NoError(t, err)
		assert.Contains(t, env[2], basicAuth(fmt.Sprintf("ghs_token%d", want)))
	}
	assert.Subset(t, c.Secrets(), []string{"ghs_token1", "ghs_token2", basicAuth("ghs_token2")})
	_, err := Wrap(github.NewClient(nil)).GitEnv(t.Context(), "https://github.com/x/y.git")
	assert.ErrorContains(t, err, "holds no token")
}

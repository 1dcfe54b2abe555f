package ghfake

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitClient runs the real git as a client would: no user or system
// configuration, no prompts, and only the environment given.
type gitClient struct {
	t   *testing.T
	env []string
}

func newGitClient(t *testing.T, extra ...string) *gitClient {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+t.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"GIT_AUTHOR_NAME=Core", "GIT_AUTHOR_EMAIL=core@example.com",
		"GIT_COMMITTER_NAME=Core", "GIT_COMMITTER_EMAIL=core@example.com",
	)
	return &gitClient{t: t, env: append(env, extra...)}
}

// headerEnv is how core hands git a token: an Authorization header in
// environment-scoped configuration (key "http.extraHeader", or
// "http.<url>.extraHeader" to scope it to one URL), never in a URL or a
// .git/config.
func headerEnv(key, token string) []string {
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	return []string{
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=" + key,
		"GIT_CONFIG_VALUE_0=Authorization: Basic " + basic,
	}
}

// run runs git in dir and returns its combined output.
func (c *gitClient) run(dir string, args ...string) (string, error) {
	c.t.Helper()
	cmd := exec.CommandContext(c.t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}

// must runs git and fails the test when it fails.
func (c *gitClient) must(dir string, args ...string) string {
	c.t.Helper()
	out, err := c.run(dir, args...)
	require.NoError(c.t, err, "git %s: %s", strings.Join(args, " "), out)
	return out
}

// cloneAndPush clones r, commits a file on branch and pushes it, returning
// the pushed SHA.
func (c *gitClient) cloneAndPush(r *Repo, branch string) string {
	c.t.Helper()
	dir := filepath.Join(c.t.TempDir(), "work")
	c.must("", "clone", "--quiet", r.CloneURL(), dir)
	c.must(dir, "switch", "--quiet", "-c", branch)
	require.NoError(c.t, os.WriteFile(filepath.Join(dir, "fix.txt"), []byte("fixed\n"), 0o600))
	c.must(dir, "add", "fix.txt")
	c.must(dir, "commit", "--quiet", "-m", "Fix it")
	c.must(dir, "push", "--quiet", "origin", branch)
	return c.must(dir, "rev-parse", "HEAD")
}

func TestGitHubGitAuthentication(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	tests := []struct {
		name    string
		env     []string
		wantErr []string // any of these in git's output
	}{
		{name: "header for all URLs", env: headerEnv("http.extraHeader", writerToken)},
		{name: "header scoped to the server", env: headerEnv("http."+g.URL+"/.extraHeader", writerToken)},
		{name: "no header", wantErr: []string{"could not read Username", "Authentication failed"}},
		{name: "wrong token", env: headerEnv("http.extraHeader", "ghp_wrong"), wantErr: []string{"could not read Username", "Authentication failed"}},
		{name: "header scoped to another URL", env: headerEnv("http.https://github.com/.extraHeader", writerToken), wantErr: []string{"could not read Username", "Authentication failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			git := newGitClient(t, tt.env...)
			dir := filepath.Join(t.TempDir(), "work")
			out, err := git.run("", "clone", r.CloneURL(), dir)
			if tt.wantErr != nil {
				require.Error(t, err, "clone succeeded without valid credentials")
				assert.True(t, containsAny(out, tt.wantErr), "git output %q names none of %q", out, tt.wantErr)
				return
			}
			require.NoError(t, err, out)
			assert.Equal(t, r.CloneURL(), git.must(dir, "remote", "get-url", "origin"), "credentials leaked into the remote URL")
			config, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
			require.NoError(t, err)
			assert.NotContains(t, string(config), "Authorization")
			assert.NotContains(t, string(config), "x-access-token")
			branch := "core/" + strings.ReplaceAll(tt.name, " ", "-")
			sha := git.cloneAndPush(r, branch)
			head, ok, err := r.Head(t.Context(), branch)
			require.NoError(t, err)
			require.True(t, ok, "pushed branch missing from the bare repository")
			assert.Equal(t, sha, head)
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestGitHubGitPermissions(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	g.MustAddRepo(t, "owner", "secret", map[string]string{"a.txt": "a\n"}, Private(true))
	require.NoError(t, g.SetPermission("owner", "secret", "core[bot]", "read"))
	tests := []struct {
		name      string
		repo      string
		token     string
		wantClone string // "" means the clone works
		wantPush  string // "" means the push works
	}{
		{name: "owner pushes to public", repo: "repo", token: ownerToken},
		{name: "writer pushes to public", repo: "repo", token: writerToken},
		{name: "reader clones but cannot push", repo: "repo", token: readerToken, wantPush: "403"},
		{name: "read role on private clones but cannot push", repo: "secret", token: writerToken, wantPush: "403"},
		{name: "no role on private sees nothing", repo: "secret", token: readerToken, wantClone: "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := g.repo("owner", tt.repo)
			git := newGitClient(t, headerEnv("http.extraHeader", tt.token)...)
			dir := filepath.Join(t.TempDir(), "work")
			out, err := git.run("", "clone", r.CloneURL(), dir)
			if tt.wantClone != "" {
				require.Error(t, err, "clone succeeded")
				assert.Contains(t, out, tt.wantClone)
				return
			}
			require.NoError(t, err, out)
			branch := "b-" + strings.ReplaceAll(tt.name, " ", "-")
			git.must(dir, "switch", "--quiet", "-c", branch)
			git.must(dir, "commit", "--quiet", "--allow-empty", "-m", "empty")
			out, err = git.run(dir, "push", "origin", branch)
			_, pushed, headErr := r.Head(t.Context(), branch)
			require.NoError(t, headErr)
			if tt.wantPush != "" {
				require.Error(t, err, "push succeeded")
				assert.Contains(t, out, tt.wantPush)
				assert.False(t, pushed, "a refused push created the branch")
				return
			}
			require.NoError(t, err, out)
			assert.True(t, pushed, "pushed branch missing")
		})
	}
}

func TestGitHubPartialClone(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, map[string]string{"big.txt": strings.Repeat("data\n", 1000), "dir/small.txt": "small\n"})
	git := newGitClient(t, headerEnv("http.extraHeader", readerToken)...)
	dir := filepath.Join(t.TempDir(), "work")
	git.must("", "clone", "--quiet", "--filter=blob:none", "--no-checkout", r.CloneURL(), dir)
	missing := git.must(dir, "rev-list", "--objects", "--all", "--missing=print")
	assert.Contains(t, missing, "?", "no blob was left out: the filter was ignored")
	// Checking out fetches the missing blobs on demand.
	git.must(dir, "checkout", "--quiet", "main")
	data, err := os.ReadFile(filepath.Join(dir, "dir", "small.txt"))
	require.NoError(t, err)
	assert.Equal(t, "small\n", string(data))

	var gitReqs int
	for _, req := range g.Requests() {
		if strings.HasPrefix(req.Path, "/git/owner/repo.git/") {
			gitReqs++
			assert.Equal(t, "reader", req.Login)
			assert.Equal(t, http.StatusOK, req.Status, "%s %s", req.Method, req.Path)
			assert.Nil(t, req.Body)
		}
	}
	assert.GreaterOrEqual(t, gitReqs, 3, "clone and lazy fetch were not recorded")
}

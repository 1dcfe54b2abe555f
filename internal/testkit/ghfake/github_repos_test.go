package ghfake

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitHubGetRepo(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	g.MustAddRepo(t, "owner", "secret", nil, Private(true), DefaultBranch("trunk"))
	fork := g.MustAddRepo(t, "forker", "repo", nil, ForkOf("owner/repo"))
	tests := []struct {
		name, owner, repo, token string
		wantStatus               int
		wantPrivate, wantFork    bool
		wantBranch, wantParent   string
		wantPush                 bool
	}{
		{name: "public as writer", owner: "owner", repo: "repo", token: writerToken, wantStatus: 200, wantBranch: "main", wantPush: true},
		{name: "public as reader", owner: "owner", repo: "repo", token: readerToken, wantStatus: 200, wantBranch: "main"},
		{name: "names ignore case", owner: "Owner", repo: "REPO", token: readerToken, wantStatus: 200, wantBranch: "main"},
		{name: "private as owner", owner: "owner", repo: "secret", token: ownerToken, wantStatus: 200, wantPrivate: true, wantBranch: "trunk", wantPush: true},
		{name: "private hidden from others", owner: "owner", repo: "secret", token: readerToken, wantStatus: 404},
		{name: "fork", owner: "forker", repo: "repo", token: readerToken, wantStatus: 200, wantFork: true, wantBranch: "main", wantParent: "owner/repo"},
		{name: "missing", owner: "owner", repo: "nope", token: ownerToken, wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, resp, err := g.Client(t, tt.token).Repositories.Get(t.Context(), tt.owner, tt.repo)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "err: %v", err)
			if tt.wantStatus != http.StatusOK {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			want := g.repo(tt.owner, tt.repo)
			assert.Equal(t, want.FullName(), got.GetFullName())
			assert.Equal(t, want.CloneURL(), got.GetCloneURL())
			assert.Equal(t, g.URL+"/"+want.FullName(), got.GetHTMLURL())
			assert.Equal(t, tt.wantPrivate, got.GetPrivate())
			assert.Equal(t, tt.wantFork, got.GetFork())
			assert.Equal(t, tt.wantBranch, got.GetDefaultBranch())
			assert.Equal(t, tt.wantParent, got.GetParent().GetFullName())
			assert.Equal(t, tt.wantPush, got.GetPermissions()["push"])
			assert.True(t, got.GetPermissions()["pull"])
			assert.Equal(t, want.owner, got.GetOwner().GetLogin())
		})
	}
	// The fork starts with the parent's branches.
	parentHead, _, err := r.Head(t.Context(), "main")
	require.NoError(t, err)
	forkHead, ok, err := fork.Head(t.Context(), "main")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, parentHead, forkHead)
}

func TestGitHubGetBranch(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	sha, err := r.Commit(t.Context(), "core/fix-7", "Fix", map[string]string{"fix.txt": "x"})
	require.NoError(t, err)
	mainSHA, _, err := r.Head(t.Context(), "main")
	require.NoError(t, err)
	require.NotEqual(t, sha, mainSHA)
	tests := []struct {
		name, branch string
		wantSHA      string // "" means 404
	}{
		{name: "default branch", branch: "main", wantSHA: mainSHA},
		{name: "branch with a slash", branch: "core/fix-7", wantSHA: sha},
		{name: "missing branch", branch: "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, resp, err := g.Client(t, readerToken).Repositories.GetBranch(t.Context(), "owner", "repo", tt.branch, 0)
			if tt.wantSHA == "" {
				require.Error(t, err)
				// go-github v62's GetBranch does not decode error bodies:
				// the status is on the response.
				assert.Equal(t, http.StatusNotFound, resp.StatusCode)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.branch, b.GetName())
			assert.Equal(t, tt.wantSHA, b.GetCommit().GetSHA())
		})
	}
}

func TestGitHubPermissionLevel(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	for login, role := range map[string]string{"a": "admin", "m": "maintain", "w": "write", "t": "triage", "r": "read", "n": "none"} {
		require.NoError(t, g.SetPermission("owner", "repo", login, role))
	}
	require.Error(t, g.SetPermission("owner", "repo", "x", "superuser"))
	require.Error(t, g.SetPermission("owner", "nope", "x", "read"))
	tests := []struct {
		user, wantPermission, wantRole string
	}{
		{user: "owner", wantPermission: "admin", wantRole: "admin"},
		{user: "a", wantPermission: "admin", wantRole: "admin"},
		{user: "m", wantPermission: "write", wantRole: "maintain"},
		{user: "w", wantPermission: "write", wantRole: "write"},
		{user: "core[bot]", wantPermission: "write", wantRole: "write"},
		{user: "t", wantPermission: "read", wantRole: "triage"},
		{user: "r", wantPermission: "read", wantRole: "read"},
		{user: "n", wantPermission: "none", wantRole: "none"},
		{user: "stranger", wantPermission: "none", wantRole: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			t.Parallel()
			p, _, err := g.Client(t, readerToken).Repositories.GetPermissionLevel(t.Context(), "owner", "repo", tt.user)
			require.NoError(t, err)
			assert.Equal(t, tt.wantPermission, p.GetPermission())
			assert.Equal(t, tt.wantRole, p.GetUser().GetRoleName())
			assert.Equal(t, tt.user, p.GetUser().GetLogin())
		})
	}
}

func TestGitHubWorkflowDispatch(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, map[string]string{
		".github/workflows/core.yml": "on:\n  workflow_dispatch:\n    inputs:\n      run_id: {}\n",
		".github/workflows/ci.yml":   "on: [push]\n",
	})
	tests := []struct {
		name, token, workflow, ref string
		wantStatus                 int
	}{
		{name: "dispatched", token: writerToken, workflow: "core.yml", ref: "main", wantStatus: 204},
		{name: "full ref", token: ownerToken, workflow: "core.yml", ref: "refs/heads/main", wantStatus: 204},
		{name: "reader refused", token: readerToken, workflow: "core.yml", ref: "main", wantStatus: 403},
		{name: "no such workflow", token: writerToken, workflow: "nope.yml", ref: "main", wantStatus: 404},
		{name: "no dispatch trigger", token: writerToken, workflow: "ci.yml", ref: "main", wantStatus: 422},
		{name: "no such ref", token: writerToken, workflow: "core.yml", ref: "nope", wantStatus: 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := g.Client(t, tt.token).Actions.CreateWorkflowDispatchEventByFileName(t.Context(), "owner", "repo", tt.workflow,
				github.CreateWorkflowDispatchEventRequest{Ref: tt.ref, Inputs: map[string]any{"run_id": tt.name}})
			require.Equal(t, tt.wantStatus, resp.StatusCode, "err: %v", err)
			var found bool
			for _, d := range g.Dispatches("owner", "repo") {
				found = found || d.Inputs["run_id"] == tt.name
			}
			if tt.wantStatus != http.StatusNoContent {
				require.Error(t, err)
				assert.False(t, found, "a refused dispatch was recorded")
				return
			}
			require.NoError(t, err)
			assert.True(t, found, "dispatch not recorded")
		})
	}
}

func TestGitHubDispatchRecord(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, map[string]string{".github/workflows/core.yml": "on: workflow_dispatch\n"})
	_, err := g.Client(t, writerToken).Actions.CreateWorkflowDispatchEventByFileName(t.Context(), "owner", "repo", "core.yml",
		github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: map[string]any{"issue": "7"}})
	require.NoError(t, err)
	assert.Equal(t, []Dispatch{{Workflow: "core.yml", Ref: "main", Inputs: map[string]any{"issue": "7"}, User: "core[bot]"}},
		g.Dispatches("owner", "repo"))
}

package ghfake

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
)

// postGraphQL sends a GraphQL request as core does and decodes the answer.
func postGraphQL(t *testing.T, url, token string, body any) (int, map[string]any) {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Authorization", "bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

func TestGitHubGraphQLReviewThreads(t *testing.T) {
	t.Parallel()
	g, n := newPullWithThreads(t)
	vars := func(number int, cursor any) map[string]any {
		return map[string]any{"owner": "owner", "name": "repo", "number": number, "cursor": cursor}
	}
	status, ans := postGraphQL(t, g.URL+"/api/graphql", readerToken, map[string]any{"query": gh.ReviewThreadsQuery, "variables": vars(n, nil)})
	require.Equal(t, http.StatusOK, status)
	require.NotContains(t, ans, "errors")
	threads := dig(t, ans, "data", "repository", "pullRequest", "reviewThreads").(map[string]any)
	assert.Equal(t, false, dig(t, threads, "pageInfo", "hasNextPage"))
	assert.NotEmpty(t, dig(t, threads, "pageInfo", "endCursor"))
	nodes := threads["nodes"].([]any)
	require.Len(t, nodes, 3)
	first := nodes[0].(map[string]any)
	assert.Equal(t, false, first["isResolved"])
	assert.Equal(t, false, first["isOutdated"])
	assert.Equal(t, "a.go", first["path"])
	assert.InDelta(t, 3, first["line"], 0)
	comments := dig(t, first, "comments", "nodes").([]any)
	require.Len(t, comments, 2)
	assert.Equal(t, map[string]any{"login": "alice"}, comments[1].(map[string]any)["author"])
	assert.Equal(t, "which name?", comments[1].(map[string]any)["body"])
	assert.Equal(t, "2024-05-01T12:01:00Z", comments[1].(map[string]any)["createdAt"])
	assert.Contains(t, comments[0].(map[string]any)["url"], "#discussion_r")
	assert.Equal(t, true, nodes[1].(map[string]any)["isResolved"])
	outdated := nodes[2].(map[string]any)
	assert.Equal(t, true, outdated["isOutdated"])
	assert.Nil(t, outdated["line"])

	// Pages of one thread, the way a client follows endCursor.
	query := "query { repository { pullRequest { reviewThreads(first: 1, after: $cursor) { nodes { path } } } } }"
	var paths []any
	var cursor any
	for range 5 {
		_, ans := postGraphQL(t, g.URL+"/graphql", readerToken, map[string]any{"query": query, "variables": vars(n, cursor)})
		page := dig(t, ans, "data", "repository", "pullRequest", "reviewThreads").(map[string]any)
		for _, node := range page["nodes"].([]any) {
			paths = append(paths, node.(map[string]any)["path"])
		}
		info := page["pageInfo"].(map[string]any)
		if info["hasNextPage"] == false {
			break
		}
		cursor = info["endCursor"]
	}
	assert.Equal(t, []any{"a.go", "b.go", "c.go"}, paths)
}

func TestGitHubGraphQLErrors(t *testing.T) {
	t.Parallel()
	g, n := newPullWithThreads(t)
	g.MustAddRepo(t, "owner", "secret", nil, Private(true))
	q := gh.ReviewThreadsQuery
	pr, _, err := g.Client(t, ownerToken).PullRequests.Get(t.Context(), "owner", "repo", n)
	require.NoError(t, err)
	ready := func(id string) map[string]any {
		return map[string]any{"query": gh.MarkReadyQuery, "variables": map[string]any{"id": id}}
	}
	tests := []struct {
		name       string
		token      string
		body       map[string]any
		wantStatus int
		wantError  string
	}{
		{name: "unsupported query", token: ownerToken, body: map[string]any{"query": "query { organization(login: \"owner\") { id } }"}, wantStatus: 200, wantError: "unsupported query"},
		{name: "unknown repository", token: ownerToken, body: map[string]any{"query": q, "variables": map[string]any{"owner": "owner", "name": "nope", "number": n}}, wantStatus: 200, wantError: "Could not resolve to a Repository with the name 'owner/nope'."},
		{name: "private repository hidden", token: readerToken, body: map[string]any{"query": q, "variables": map[string]any{"owner": "owner", "name": "secret", "number": 1}}, wantStatus: 200, wantError: "Could not resolve to a Repository with the name 'owner/secret'."},
		{name: "unknown pull request", token: ownerToken, body: map[string]any{"query": q, "variables": map[string]any{"owner": "owner", "name": "repo", "number": 99}}, wantStatus: 200, wantError: "Could not resolve to a PullRequest with the number of 99."},
		{name: "bad cursor", token: ownerToken, body: map[string]any{"query": q, "variables": map[string]any{"owner": "owner", "name": "repo", "number": n, "cursor": "x"}}, wantStatus: 200, wantError: "`x` does not appear to be a valid cursor."},
		{name: "bad token", token: "ghp_nope", body: map[string]any{"query": q}, wantStatus: 401},
		{name: "ready for review needs write", token: readerToken, body: ready(pr.GetNodeID()), wantStatus: 200, wantError: "Resource not accessible by integration"},
		{name: "ready for review of an unknown node", token: ownerToken, body: ready("PR_x"), wantStatus: 200, wantError: "Could not resolve to a node with the global id of 'PR_x'"},
	}
	t.Run("cases", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				status, ans := postGraphQL(t, g.URL+"/api/graphql", tt.token, tt.body)
				require.Equal(t, tt.wantStatus, status)
				if tt.wantError == "" {
					return
				}
				errs, ok := ans["errors"].([]any)
				require.True(t, ok, "want errors in %v", ans)
				assert.Equal(t, tt.wantError, errs[0].(map[string]any)["message"])
			})
		}
	})
	var recorded int
	for _, r := range g.Requests() {
		if r.Method == http.MethodPost && r.Path == "/api/graphql" {
			recorded++
		}
	}
	assert.Equal(t, len(tests), recorded, "every GraphQL request is recorded")
}

// dig walks nested JSON objects.
func dig(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		require.True(t, ok, "want an object holding %q, got %v", k, v)
		v = m[k]
	}
	return v
}

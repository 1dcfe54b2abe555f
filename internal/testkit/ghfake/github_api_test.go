package ghfake

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenFrom(t *testing.T) {
	t.Parallel()
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, header, want string
	}{
		{name: "bearer", header: "Bearer tok", want: "tok"},
		{name: "token", header: "token tok", want: "tok"},
		{name: "scheme case", header: "BEARER tok", want: "tok"},
		{name: "basic with x-access-token", header: basic("x-access-token:tok"), want: "tok"},
		{name: "basic with token as user", header: basic("tok:"), want: "tok"},
		{name: "basic garbage", header: "Basic !!!", want: ""},
		{name: "no scheme", header: "tok", want: ""},
		{name: "unknown scheme", header: "Digest tok", want: ""},
		{name: "empty", header: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tokenFrom(tt.header))
		})
	}
}

func TestGitHubRouting(t *testing.T) {
	t.Parallel()
	g := NewGitHub(t)
	tests := []struct {
		name, method, path string
		wantOK             bool
		wantParams         map[string]string
	}{
		{name: "repo", method: "GET", path: "/repos/o/r", wantOK: true, wantParams: map[string]string{"owner": "o", "repo": "r"}},
		{name: "escaped slash stays in the branch", method: "GET", path: "/repos/o/r/branches/core%2Ffix", wantOK: true,
			wantParams: map[string]string{"owner": "o", "repo": "r", "branch": "core/fix"}},
		{name: "raw slashes join the branch", method: "GET", path: "/repos/o/r/branches/core/fix", wantOK: true,
			wantParams: map[string]string{"owner": "o", "repo": "r", "branch": "core/fix"}},
		{name: "comment, not issue", method: "PATCH", path: "/repos/o/r/issues/comments/7", wantOK: true,
			wantParams: map[string]string{"owner": "o", "repo": "r", "id": "7"}},
		{name: "label with a space", method: "DELETE", path: "/repos/o/r/issues/3/labels/needs%20review", wantOK: true,
			wantParams: map[string]string{"owner": "o", "repo": "r", "number": "3", "name": "needs review"}},
		{name: "wrong method", method: "PUT", path: "/repos/o/r", wantOK: false},
		{name: "too long", method: "GET", path: "/repos/o/r/x/y", wantOK: false},
		{name: "empty segment", method: "GET", path: "/repos//r", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, params, ok := g.match(tt.method, tt.path)
			assert.Equal(t, tt.wantOK, ok)
			if tt.wantOK {
				assert.Equal(t, tt.wantParams, params)
			}
		})
	}
}

func TestGitHubPaginationLinks(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	n, err := g.AddIssue("owner", "repo", Issue{Title: "t"})
	require.NoError(t, err)
	for range 5 {
		_, err := g.AddComment("owner", "repo", n, Comment{Body: "x"})
		require.NoError(t, err)
	}
	tests := []struct {
		name                                    string
		page                                    int
		wantLen                                 int
		wantPrev, wantNext, wantFirst, wantLast int
	}{
		{name: "first", page: 1, wantLen: 2, wantNext: 2, wantLast: 3},
		{name: "middle", page: 2, wantLen: 2, wantPrev: 1, wantNext: 3, wantFirst: 1, wantLast: 3},
		{name: "last", page: 3, wantLen: 1, wantPrev: 2, wantFirst: 1},
		{name: "past the end", page: 9, wantLen: 0, wantPrev: 3, wantFirst: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, resp, err := g.Client(t, readerToken).Issues.ListComments(t.Context(), "owner", "repo", n,
				&github.IssueListCommentsOptions{ListOptions: github.ListOptions{Page: tt.page, PerPage: 2}})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Len(t, cs, tt.wantLen)
			assert.NotNil(t, cs, "an empty page must be [] on the wire")
			assert.Equal(t, []int{tt.wantPrev, tt.wantNext, tt.wantFirst, tt.wantLast},
				[]int{resp.PrevPage, resp.NextPage, resp.FirstPage, resp.LastPage})
			assert.Contains(t, resp.Header.Get("Link"), "<"+g.URL+"/api/v3/repos/owner/repo/issues/1/comments?")
		})
	}
}

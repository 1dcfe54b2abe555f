package ghapps

import (
	"errors"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// ownerToken is the personal token of "owner".
const ownerToken = "ghp_owner"

// double is a GitHub double with its App side, as the tests reach both.
type double struct {
	*ghfake.GitHub
	*Apps
}

// newTestGitHub starts a GitHub double with its App side, and owner/repo
// (owned by "owner", whose token is ownerToken).
func newTestGitHub(t *testing.T, files map[string]string) (*double, *ghfake.Repo) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	d := &double{GitHub: g, Apps: New(g)}
	g.AddToken(ownerToken, "owner")
	if files == nil {
		files = map[string]string{"README.md": "# repo\n"}
	}
	return d, g.MustAddRepo(t, "owner", "repo", files)
}

// errorResponse unwraps go-github's error for a GitHub error body.
func errorResponse(t *testing.T, err error) *github.ErrorResponse {
	t.Helper()
	var er *github.ErrorResponse
	require.True(t, errors.As(err, &er), "want a *github.ErrorResponse, got %T: %v", err, err)
	return er
}

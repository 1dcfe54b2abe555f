package gh

import (
	"errors"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPullRequestFork(t *testing.T) {
	t.Parallel()
	head := func(fullName string) *github.PullRequestBranch {
		return &github.PullRequestBranch{Ref: github.String("fix"), Repo: &github.Repository{FullName: github.String(fullName)}}
	}
	tests := []struct {
		name string
		head *github.PullRequestBranch
		want bool
	}{
		{"a branch of the repository", head("octo/hello"), false},
		{"a branch of the repository, other letter case", head("Octo/HELLO"), false},
		{"a fork", head("mallory/hello"), true},
		{"a fork of the same name under a look-alike owner", head("octo-/hello"), true},
		{"a repository whose name the base's is a prefix of", head("octo/hello-world"), true},
		// GitHub sends head.repo null once the fork is deleted: the head
		// is still someone else's.
		{"a deleted fork (head repo null)", &github.PullRequestBranch{Ref: github.String("fix")}, true},
		{"no head at all", nil, true},
		{"a head repo without a name", head(""), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pr := pullFrom(&github.PullRequest{Number: github.Int(1), Head: tt.head})
			assert.Equal(t, tt.want, pr.Fork("octo", "hello"))
		})
	}
}

// TestActionsMayNotOpenPulls: with the repository's setting "Allow GitHub
// Actions to create and approve pull requests" off, GitHub refuses the
// workflow's token: the error names the setting, and another token of
// the same repository still opens pull requests.
func TestActionsMayNotOpenPulls(t *testing.T) {
	t.Parallel()
	user, g, repo := newTestClient(t)
	ctx := t.Context()
	_, err := repo.Commit(ctx, "fix", "a fix", map[string]string{"a.txt": "b\n"})
	require.NoError(t, err)
	g.AddToken("ghs_actions", "github-actions[bot]")
	require.NoError(t, g.SetPermission("octo", "hello", "github-actions[bot]", "write"))
	actions, err := New(Credentials{Token: "ghs_actions", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	repo.ForbidActionsPulls()

	pr := NewPullRequest{Title: "a fix", Head: "fix", Base: "main", Draft: true}
	_, err = actions.CreatePullRequest(ctx, "octo", "hello", pr)
	var ae *ActionsPullsError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "octo/hello", ae.Repo)
	assert.Contains(t, err.Error(), `Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests"`)
	assert.Contains(t, errors.Unwrap(err).Error(), "GitHub Actions is not permitted to create or approve pull requests.", "GitHub's words are kept")

	// Another refusal is not mistaken for it.
	_, err = user.CreatePullRequest(ctx, "octo", "hello", NewPullRequest{Title: "x", Head: "nope", Base: "main"})
	require.Error(t, err)
	assert.False(t, errors.As(err, &ae), "%v", err)

	opened, err := user.CreatePullRequest(ctx, "octo", "hello", pr)
	require.NoError(t, err, "a user's token is not a workflow's")
	assert.Equal(t, 1, opened.Number)
}

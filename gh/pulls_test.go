package gh

import (
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
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

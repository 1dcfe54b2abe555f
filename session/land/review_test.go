package land

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/gh"
)

func TestQuestion(t *testing.T) {
	t.Parallel()
	fork := &gh.PullRequest{Number: 3, HeadRepo: "mallory/hello", HeadRef: "patch-1"}
	same := &gh.PullRequest{Number: 4, HeadRepo: "octo/hello", HeadRef: "feature"}
	tests := []struct {
		name   string
		origin *Repo
		pull   int
		branch string
		want   string
	}{
		{name: "a fork's pull request", origin: &Repo{owner: "octo", repoNm: "hello", pull: fork}, pull: 3, branch: "patch-1",
			want: "post the work as a review with suggested changes on pull request #3 (from the fork mallory/hello: nothing is pushed)? [y/N] "},
		{name: "a pull request of the repository", origin: &Repo{owner: "octo", repoNm: "hello", pull: same}, pull: 4, branch: "feature",
			want: "commit and push onto pull request #4 (feature)? [y/N] "},
		{name: "new work", origin: &Repo{owner: "octo", repoNm: "hello"}, branch: "core-session/x",
			want: "commit, push core-session/x and open a draft pull request? [y/N] "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.origin.Question(tt.pull, tt.branch))
		})
	}
}

// TestReviewBodyCutsLongPatches keeps the body under GitHub's limit: a
// patch that does not fit is named, not sent.
func TestReviewBodyCutsLongPatches(t *testing.T) {
	t.Parallel()
	s := &Work{Record: Record{ID: "s1", StartCommit: "abc"}}
	pr := &gh.PullRequest{Number: 2, HeadRepo: "m/x", HeadSHA: "abc"}
	small := "diff --git a/a b/a\n@@ -1 +1 @@\n-a\n+b\n"
	huge := "diff --git a/big b/big\n@@ -0,0 +1,5000 @@\n" + strings.Repeat("+0123456789abcdef\n", 5000)
	body := s.reviewBody(pr, Suggestions{Rest: []string{small, huge}})
	assert.Less(t, len(body), maxReviewBody)
	assert.Contains(t, body, "```diff\n"+small+"```")
	assert.Contains(t, body, "(5002 more lines of patch are too long for a review: they are in session `s1`'s workspace.)")
	assert.NotContains(t, body, "0123456789abcdef", "the long patch is not sent")
}

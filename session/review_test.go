package session

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/state"
)

// TestGitHubForkReview lands on a fork's pull request asked for by number:
// a review with a suggestion, nothing pushed. When the head moved while the
// session worked, the whole change is a patch in the body instead, since
// GitHub would put suggestions on other lines.
func TestGitHubForkReview(t *testing.T) {
	t.Parallel()
	for _, moved := range []bool{false, true} {
		t.Run(map[bool]string{false: "head as it was", true: "head moved"}[moved], func(t *testing.T) {
			t.Parallel()
			f := newGitHubFixture(t)
			fork := f.g.MustAddRepo(t, "mallory", "hello", nil, ghfake.ForkOf("octo/hello"))
			first, err := fork.Commit(t.Context(), "patch-1", "a change", map[string]string{"hello.txt": "hi\n"})
			require.NoError(t, err)
			num, err := f.g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "From a fork", Head: "patch-1", HeadRepo: "mallory/hello", User: "mallory"})
			require.NoError(t, err)
			srv := llm.NewModelServer(t,
				llm.ContentReply("tool: edit_file\npath: hello.txt\nold_text: hi\nnew_text: hi there"),
				llm.ContentReply("tool: done\nsummary: Say more"))
			opts := f.options(t, srv)
			opts.Goal.PullRequest = num
			if moved {
				// The session starts from the head core fetched before the
				// author pushed again.
				opts.Goal.Pull, err = opts.Services.GitHub.PullRequest(t.Context(), "octo", "hello", num)
				require.NoError(t, err)
				_, err = fork.Commit(t.Context(), "patch-1", "more", map[string]string{"more.txt": "more\n"})
				require.NoError(t, err)
			}
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			assert.True(t, rep.Landed)

			reviews := f.g.Reviews("octo", "hello", num)
			require.Len(t, reviews, 1)
			rv := reviews[0]
			assert.Equal(t, first, rv.CommitID)
			assert.Contains(t, rv.Body, "Say more")
			if moved {
				assert.Empty(t, rv.Comments)
				assert.Contains(t, rv.Body, "its head moved from "+first[:12]+" to ")
				assert.Contains(t, rv.Body, "### The change\n\nApply it with `git apply` on "+first[:12])
				assert.Contains(t, rv.Body, "-hi\n+hi there\n")
			} else {
				assert.Equal(t, []ghfake.ReviewDraftComment{{Path: "hello.txt", Line: 1, Side: "RIGHT", Body: "```suggestion\nhi there\n```"}}, rv.Comments)
				assert.NotContains(t, rv.Body, "git apply")
			}
			for _, r := range f.g.Requests() {
				assert.NotContains(t, r.Path, "git-receive-pack", "nothing is pushed")
				assert.NotContains(t, r.Path, "mallory", "core never talks to the fork")
			}
			assertNoToken(t, opts, f, srv)
		})
	}
}

func TestLandQuestion(t *testing.T) {
	t.Parallel()
	fork := &gh.PullRequest{Number: 3, HeadRepo: "mallory/hello", HeadRef: "patch-1"}
	same := &gh.PullRequest{Number: 4, HeadRepo: "octo/hello", HeadRef: "feature"}
	tests := []struct {
		name   string
		origin origin
		rec    Record
		want   string
	}{
		{name: "a fork's pull request", origin: &githubRepo{owner: "octo", repoNm: "hello", pull: fork}, rec: Record{RecordTask: RecordTask{PullRequest: 3, Branch: "patch-1"}},
			want: "post the work as a review with suggested changes on pull request #3 (from the fork mallory/hello: nothing is pushed)? [y/N] "},
		{name: "a pull request of the repository", origin: &githubRepo{owner: "octo", repoNm: "hello", pull: same}, rec: Record{RecordTask: RecordTask{PullRequest: 4, Branch: "feature"}},
			want: "commit and push onto pull request #4 (feature)? [y/N] "},
		{name: "new work", origin: &githubRepo{owner: "octo", repoNm: "hello"}, rec: Record{RecordTask: RecordTask{Branch: "core-session/x"}},
			want: "commit, push core-session/x and open a draft pull request? [y/N] "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &run{rec: &tt.rec, origin: tt.origin}
			assert.Equal(t, tt.want, s.landQuestion())
		})
	}
}

// TestReviewBodyCutsLongPatches keeps the body under GitHub's limit: a
// patch that does not fit is named, not sent.
func TestReviewBodyCutsLongPatches(t *testing.T) {
	t.Parallel()
	s := &run{rec: &Record{ID: "s1", RecordTask: RecordTask{StartCommit: "abc"}}, report: &Report{}}
	pr := &gh.PullRequest{Number: 2, HeadRepo: "m/x", HeadSHA: "abc"}
	small := "diff --git a/a b/a\n@@ -1 +1 @@\n-a\n+b\n"
	huge := "diff --git a/big b/big\n@@ -0,0 +1,5000 @@\n" + strings.Repeat("+0123456789abcdef\n", 5000)
	body := s.reviewBody(pr, land.Suggestions{Rest: []string{small, huge}})
	assert.Less(t, len(body), maxReviewBody)
	assert.Contains(t, body, "```diff\n"+small+"```")
	assert.Contains(t, body, "(5002 more lines of patch are too long for a review: they are in session `s1`'s workspace.)")
	assert.NotContains(t, body, "0123456789abcdef", "the long patch is not sent")
}

package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
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
				assert.NotContains(t, r.Path, "/git/commits", "no commit is made through the API")
				assert.NotContains(t, r.Path, "mallory", "core never talks to the fork")
			}
			assertNoToken(t, opts, f, srv)
		})
	}
}

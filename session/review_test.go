package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/review"
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

// TestReviewOfAHeadGoneIsInfrastructure: a pull request whose head core
// read was force-pushed away before the clone, and collected (GitHub then
// serves refs/pull/N/head at the new head, and the old one not at all),
// cannot be fetched: the run fails for the infrastructure, says what to do, and
// posts no review. The same for a fork's pull request and a branch of the
// repository's own.
func TestReviewOfAHeadGoneIsInfrastructure(t *testing.T) {
	t.Parallel()
	for _, fork := range []bool{false, true} {
		t.Run(map[bool]string{false: "own branch", true: "fork"}[fork], func(t *testing.T) {
			t.Parallel()
			f := newGitHubFixture(t)
			head, headRepo := f.repo, ""
			if fork {
				head, headRepo = f.g.MustAddRepo(t, "mallory", "hello", nil, ghfake.ForkOf("octo/hello")), "mallory/hello"
			}
			_, err := head.Commit(t.Context(), "patch-1", "a change", map[string]string{"hello.txt": "hi\n"})
			require.NoError(t, err)
			num, err := f.g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "A change", Head: "patch-1", HeadRepo: headRepo, User: "mallory"})
			require.NoError(t, err)
			srv := llm.NewModelServer(t)
			opts := f.options(t, srv)
			opts.Goal.PullRequest = num
			opts.Goal.Pull, err = opts.Services.GitHub.PullRequest(t.Context(), "octo", "hello", num)
			require.NoError(t, err)
			opts.Goal.Review = &review.Goal{Base: opts.Goal.Pull.BaseRef}
			opts.Goal.Prompt = "Review pull request #1"

			// The author force-pushes a commit unrelated to the one core
			// read; GitHub moves refs/pull/N/head along (a read of the
			// pull request makes ghfake do it).
			tree := testkit.Git(t, head.Dir(), "rev-parse", "patch-1^{tree}")
			other := testkit.Git(t, head.Dir(), "-c", "user.name=m", "-c", "user.email=m@example.com", "commit-tree", "-m", "rewritten", tree)
			testkit.Git(t, head.Dir(), "update-ref", "refs/heads/patch-1", other)
			moved, err := opts.Services.GitHub.PullRequest(t.Context(), "octo", "hello", num)
			require.NoError(t, err)
			require.Equal(t, other, moved.HeadSHA)
			// GitHub's garbage collection then drops the old head: no ref of
			// the repository (or of the fork) reaches it.
			for _, dir := range []string{f.repo.Dir(), head.Dir()} {
				testkit.Git(t, dir, "reflog", "expire", "--expire=now", "--all")
				testkit.Git(t, dir, "gc", "--quiet", "--prune=now")
			}

			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			assert.Equal(t, state.Failed, rep.Status)
			assert.Equal(t, state.FailInfrastructure, rep.FailureKind)
			assert.Contains(t, rep.Error, "the head "+opts.Goal.Pull.HeadSHA[:12]+" of pull request #1 cannot be fetched from octo/hello")
			assert.Contains(t, rep.Error, "run again: it starts from the pull request's head as it is then")
			assert.Empty(t, f.g.Reviews("octo", "hello", num), "no review is posted")
			assert.Empty(t, srv.Requests(), "the model is never asked")
		})
	}
}

package review

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/contract"
)

// testsOf are the Tests of a review of a clone whose head changes
// head's files over base's, with a sandbox that is never asked to run
// anything here.
func testsOf(t *testing.T, base, head map[string]string) Tests {
	t.Helper()
	repo := testkit.GitRepo(t, base)
	testkit.CommitChange(t, repo, head)
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap})
	return Tests{
		Confinement: contract.Confinement{Sandbox: sb, Tier: lang.TierTest},
		Git:         testkit.GitRunner([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}),
		Clone:       repo,
		Base:        testkit.Git(t, repo, "rev-parse", "HEAD~1"),
		Head:        testkit.Git(t, repo, "rev-parse", "HEAD"),
	}
}

// TestClassifyTestsNeverFailsTheReview: GitHub's error listing the files,
// and a head that is not there, are the classification's Error, said in
// the review; a pull request that only removes a test file, or changes
// none, runs nothing and says so.
func TestClassifyTestsNeverFailsTheReview(t *testing.T) {
	t.Parallel()
	base := map[string]string{"go.mod": "module example.com/calc\n", "calc_test.go": "package calc\n", "README": "hi\n"}
	for _, tc := range []struct {
		name  string
		head  map[string]string
		files []gh.PullFile
		err   error
		bad   string // the head's SHA, when not the commit's
		want  string // the Error
	}{
		{name: "GitHub would not list the files", head: map[string]string{"README": "ho\n"}, err: errors.New("GET .../pulls/1/files: 502 Bad Gateway"),
			want: "list the pull request's files: GET .../pulls/1/files: 502 Bad Gateway"},
		{name: "a head that is gone", head: map[string]string{"README": "ho\n"}, bad: "0123456789012345678901234567890123456789",
			want: "look up calc_test.go in 0123456789012345678901234567890123456789"},
		{name: "a removed test file", head: map[string]string{"calc_test.go": ""},
			files: []gh.PullFile{{Path: "calc_test.go", Status: "removed"}}},
		{name: "no test file changed, locally", head: map[string]string{"README": "ho\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := testsOf(t, base, tc.head)
			if tc.files != nil || tc.err != nil || tc.bad != "" {
				files := tc.files
				if tc.bad != "" {
					ts.Head, files = tc.bad, []gh.PullFile{{Path: "calc_test.go", Status: "modified"}}
				}
				ts.Files = func(context.Context) ([]gh.PullFile, error) { return files, tc.err }
			}
			c := ClassifyTests(t.Context(), ts)
			require.NotNil(t, c)
			if tc.want == "" {
				assert.Empty(t, c.Error)
				assert.Empty(t, c.Files, "nothing to classify")
				return
			}
			assert.Contains(t, c.Error, tc.want)
		})
	}
}

func TestChangedKeepsWhatTheHeadHas(t *testing.T) {
	t.Parallel()
	ts := Tests{Files: func(context.Context) ([]gh.PullFile, error) {
		return []gh.PullFile{{Path: "a_test.go", Status: "added"}, {Path: "b_test.go", Status: "removed"}, {Path: "c_test.go", Status: "modified"},
			{Path: "d_test.go", Status: "renamed"}, {Path: "e_test.go", Status: "unchanged"}}, nil
	}}
	got, err := ts.changed(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"a_test.go", "c_test.go", "d_test.go"}, got)
}

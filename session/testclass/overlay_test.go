package testclass

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session/contract"
)

// TestOverlayNeverFollowsTheBasesLinks: where the base has a link to a
// folder outside the repository, and the head a folder of that name with
// a new test file, the file is not written through the link: git refuses
// to put it there, and the base says it could not run it.
func TestOverlayNeverFollowsTheBasesLinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	repo := testkit.GitRepo(t, map[string]string{"go.mod": "module m\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(repo, "pkg")))
	testkit.Git(t, repo, "add", "pkg")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a link")
	base := testkit.Git(t, repo, "rev-parse", "HEAD")
	testkit.Git(t, repo, "rm", "-q", "pkg")
	testkit.WriteFiles(t, repo, map[string]string{"pkg/x_test.go": "package pkg\n"})
	testkit.Git(t, repo, "add", "pkg")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a folder")
	head := testkit.Git(t, repo, "rev-parse", "HEAD")

	o := Options{Git: testGit(gitEnv(t)), Clone: repo}
	files, _, err := find(t.Context(), o.Git, repo, base, head, []string{"pkg/x_test.go"})
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.True(t, files[0].new, "the base has a link there, not the file")
	dir := filepath.Join(t.TempDir(), "base")
	err = overlay(t.Context(), o, files[0], dir, base)
	assert.ErrorContains(t, err, "the head's pkg/x_test.go cannot be put in the base's tree")
	entries, readErr := os.ReadDir(outside)
	require.NoError(t, readErr)
	assert.Empty(t, entries, "nothing was written through the link")
}

// TestClassifyRefusesBadInput: a commit not named by its full SHA (an
// option git would read, a branch name) or missing options are refused
// before anything runs, and nothing is checked out.
func TestClassifyRefusesBadInput(t *testing.T) {
	t.Parallel()
	pr := newPullRequest(t, map[string]string{"go.mod": "module m\n"}, map[string]string{"a_test.go": "package m\n"})
	o := Options{Git: testGit(gitEnv(t)), Clone: pr.clone, Confinement: contract.Confinement{Sandbox: sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeOff})}}
	tests := []struct {
		name       string
		o          Options
		base, head string
		err        string
	}{
		{name: "an option for a base", o: o, base: "--output=/tmp/x", head: pr.head, err: `the base must be a commit's full SHA, got "--output=/tmp/x"`},
		{name: "a branch for a head", o: o, base: pr.base, head: "main", err: `the head must be a commit's full SHA, got "main"`},
		{name: "no clone", o: Options{Git: o.Git, Confinement: o.Confinement}, base: pr.base, head: pr.head, err: "the options need a Git runner, a sandbox and a clone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Classify(t.Context(), tt.o, tt.base, tt.head, pr.changed)
			assert.ErrorContains(t, err, tt.err)
			assert.NoDirExists(t, pr.clone+".tests-head")
		})
	}
}

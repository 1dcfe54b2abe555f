package testclass

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func TestEcosystemOf(t *testing.T) {
	t.Parallel()
	tests := map[string]Ecosystem{
		"calc_test.go": Go, "pkg/a/b_test.go": Go, "_test.go": "", "calc.go": "",
		"test_calc.py": Python, "pkg/calc_test.py": Python, "test_.py": "", "calc.py": "",
		"a.test.js": Node, "test.js": Node, "pkg/test.mjs": Node, "src/a.spec.ts": Node, "latest.js": "", "contest.ts": "", "test/a.mjs": Node, "x/__tests__/a.cjs": Node, "src/a.js": "",
		"tests/api.rs": Rust, "src/lib.rs": Rust, "tests/common/mod.rs": "", "benches/b.rs": "",
		"README.md": "", "testdata/x_test.go": "", "a/vendor/b/x_test.go": "", "node_modules/p/a.test.js": "", ".github/test_x.py": "", "test/fixtures/a.js": "",
	}
	for p, want := range tests {
		assert.Equal(t, want, ecosystemOf(p), p)
	}
}

func TestBadPath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "/etc/x_test.go", "../x_test.go", "a/../../x_test.go", "a//x_test.go", "./x_test.go", `a\x_test.go`, "a/.git/x_test.go", "x\x00_test.go"} {
		assert.NotEmpty(t, BadPath(p), "%q is refused", p)
	}
	for _, p := range []string{"x_test.go", "a/b/x_test.go", "..x_test.go"} {
		assert.Empty(t, BadPath(p), "%q is a path inside the repository", p)
	}
}

// TestFindRefusesHostileFiles: a test file that is a link (to a file
// outside the repository), a file over MaxFileBytes, a path outside the
// repository or one git would read as a pattern is refused, never read; a
// file that is not a test, or was deleted, is not there at all; a FIFO in
// the clone's working tree is never looked at, since only git objects are.
func TestFindRefusesHostileFiles(t *testing.T) {
	t.Parallel()
	pr := newPullRequest(t, map[string]string{"go.mod": "module m\n", "a_test.go": "package m\n", "gone_test.go": "package m\n"},
		map[string]string{"calc.go": "package m\n", "gone_test.go": "", "big_test.go": "package m\n//" + strings.Repeat("x", MaxFileBytes) + "\n", "b_test.go": "package m\n"})
	repo := pr.clone
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(repo, "link_test.go")))
	testkit.Git(t, repo, "add", "link_test.go")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a link")
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	require.NoError(t, os.Remove(filepath.Join(repo, "b_test.go")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(repo, "b_test.go"), 0o644), "a FIFO where the file was: reading it would block")

	changed := []string{"calc.go", "gone_test.go", "big_test.go", "b_test.go", "link_test.go", "../up_test.go", "*_test.go", "a_test.go"}
	files, leftOut, err := find(t.Context(), testGit(gitEnv(t)), repo, pr.base, head, changed)
	require.NoError(t, err)
	assert.Zero(t, leftOut)
	got := map[string]testFile{}
	for _, f := range files {
		got[f.path] = f
	}
	assert.NotContains(t, got, "calc.go", "not a test file")
	assert.NotContains(t, got, "gone_test.go", "deleted: nothing to run")
	assert.NotContains(t, got, "*_test.go", "a pattern is not a path git matches")
	assert.Contains(t, got["big_test.go"].refused, "over the 1048576 a test file may have")
	assert.Contains(t, got["link_test.go"].refused, "a symbolic link")
	assert.Contains(t, got["../up_test.go"].refused, "not a clean path inside the repository")
	assert.Empty(t, got["b_test.go"].refused)
	assert.True(t, got["b_test.go"].new)
	assert.NotEmpty(t, got["b_test.go"].blob, "read from the head's objects, not from the FIFO")
	assert.False(t, got["a_test.go"].new, "the base has it")
}

// TestFindIsBounded: thousands of test files are not run; the rest are
// counted.
func TestFindIsBounded(t *testing.T) {
	t.Parallel()
	head := map[string]string{}
	var changed []string
	for i := range 2000 {
		name := fmt.Sprintf("t%04d_test.go", i)
		head[name] = "package m\n"
		changed = append(changed, name, name)
	}
	pr := newPullRequest(t, map[string]string{"go.mod": "module m\n"}, head)
	files, leftOut, err := find(t.Context(), testGit(gitEnv(t)), pr.clone, pr.base, pr.head, changed)
	require.NoError(t, err)
	assert.Len(t, files, MaxFiles)
	assert.Equal(t, 2000-MaxFiles, leftOut, "each left out once, however often it is named")
}

func TestChanged(t *testing.T) {
	t.Parallel()
	pr := newPullRequest(t, map[string]string{"a.go": "package a\n", "gone_test.go": "package a\n", "same.go": "package a\n"},
		map[string]string{"a.go": "package a\n\nvar X = 1\n", "gone_test.go": "", "dir/new test_x.go": "package dir\n"})
	got, err := Changed(t.Context(), testGit(gitEnv(t)), pr.clone, pr.base, pr.head)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go", "dir/new test_x.go"}, got, "a deleted path has nothing to run; a name with a space is whole")
	_, err = Changed(t.Context(), testGit(gitEnv(t)), pr.clone, pr.base, "no-such-commit")
	assert.ErrorContains(t, err, "list the paths changed between")
}

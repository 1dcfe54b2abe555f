package review

import (
	"cmp"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/contract"
)

// change is a clone holding a base commit and a head commit that writes
// head's files over it.
type change struct{ clone, base, head string }

func newChange(t *testing.T, base, head map[string]string) change {
	t.Helper()
	repo := testkit.GitRepo(t, base)
	testkit.WriteFiles(t, repo, head)
	testkit.Git(t, repo, "add", "-A")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "the change")
	clone := filepath.Join(t.TempDir(), "ws")
	testkit.Git(t, filepath.Dir(clone), "clone", "-q", repo, clone)
	return change{clone: clone, base: testkit.Git(t, clone, "rev-parse", "HEAD~1"), head: testkit.Git(t, clone, "rev-parse", "HEAD")}
}

// harness is the harness of c, confined in real bwrap at the test tier
// with the user's build cache; it skips (or, with CORE_REQUIRE_BWRAP=1,
// fails) when ecosystem's toolchain is missing.
func harness(t *testing.T, c change, ecosystem string) Harness {
	t.Helper()
	sb := sandboxtest.Toolchain(t, ecosystem)
	return Harness{
		Confinement: contract.Confinement{Sandbox: sb, Tier: lang.TierTest, Timeout: 10 * time.Minute}, // a busy machine compiles slowly
		Git:         testkit.GitRunner([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}),
		Clone:       c.clone, Base: c.base, Head: c.head,
	}
}

// scratchLeft lists what the harness left beside the clone.
func scratchLeft(t *testing.T, clone string) []string {
	t.Helper()
	left, err := filepath.Glob(clone + ".repro-*")
	require.NoError(t, err)
	return left
}

const (
	calcBase = "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a * b }\n"
	calcHead = "package calc\n\nfunc Add(a, b int) int { return a - b }\n\nfunc Mul(a, b int) int { return a * b }\n"
)

// reproTest is a Go test file of package calc whose test runs body.
func reproTest(body string) string {
	return "package calc\n\nimport \"testing\"\n\nfunc TestRepro(t *testing.T) {\n" + body + "\n}\n"
}

// TestReproduceGo: a pull request brings a real bug (Add subtracts). A
// reproduction red on the head and green on the base is confirmed; one
// that passes on the head is not, whatever it claims; one that fails
// without the predicted output is not; one that fails the same way on
// both is not. Each ran confined, in scratch copies the harness removed.
func TestReproduceGo(t *testing.T) {
	t.Parallel()
	c := newChange(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.21\n", "calc/calc.go": calcBase}, map[string]string{"calc/calc.go": calcHead})
	h := harness(t, c, "go")
	addTest := reproTest("\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}")
	tests := []struct {
		name             string
		claim, content   string
		expect           string
		confirmed        bool
		why              string
		headExit         int
		baseExit         int
		basePassed       bool
		headExcerptHolds string
	}{
		{name: "red on the head, green on the base", claim: "Add subtracts", content: addTest, expect: "Add(2, 3) = -1, want 5",
			confirmed: true, why: "passes on the base", headExit: 1, basePassed: true, headExcerptHolds: "Add(2, 3) = -1, want 5"},
		{name: "passes on the head", claim: "Mul is wrong, Mul(2, 3) is 5", content: reproTest("\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"Mul(2, 3) = 5\")\n\t}"), expect: "Mul(2, 3) = 5",
			why: "the reproduction passed on the head", basePassed: true},
		{name: "fails without the prediction", claim: "Add subtracts", content: addTest, expect: "Add(2, 3) = 7",
			why: `its output does not contain the prediction "Add(2, 3) = 7"`, headExit: 1, basePassed: true},
		{name: "fails on both", claim: "the package is broken", content: reproTest("\tt.Fatal(\"always broken\")"), expect: "always broken",
			why: "it fails the same way on the base", headExit: 1, baseExit: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := Finding{File: "calc/calc.go", Line: 3, Claim: tt.claim, Reproduction: &Reproduction{
				Path: "calc/repro_test.go", Content: tt.content, Command: []string{"go", "test", "-count=1", "./calc", "-run", "TestRepro"}, Expect: tt.expect}}
			got, err := h.Reproduce(t.Context(), f)
			require.NoError(t, err)
			r := got.Reproduction
			require.NotNil(t, r.Head, got.Why)
			require.NotNil(t, r.Base, got.Why)
			assert.Equal(t, tt.confirmed, got.Confirmed, got.Why)
			assert.Contains(t, got.Why, tt.why)
			assert.Empty(t, r.Head.Error, r.Head.Excerpt)
			assert.Equal(t, tt.headExit, r.Head.Exit, r.Head.Excerpt)
			assert.Equal(t, tt.basePassed, r.Base.Passed, r.Base.Excerpt)
			if !tt.basePassed {
				assert.Equal(t, tt.baseExit, r.Base.Exit, r.Base.Excerpt)
			}
			assert.Contains(t, r.Head.Excerpt, tt.headExcerptHolds)
			assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, r.Head.OutputHash)
			assert.Nil(t, f.Reproduction.Head, "the model's finding is not changed")
		})
	}
	t.Cleanup(func() {
		assert.Empty(t, scratchLeft(t, c.clone), "the scratch copies are removed")
		assert.Empty(t, testkit.Git(t, c.clone, "status", "--porcelain"), "the clone is untouched")
	})
}

// TestReproduceRefuses: a reproduction the harness must not write or run
// is refused before anything is checked out: a path outside the
// repository, inside .git, under or over a committed link, over a
// submodule or a folder, too big, or a command the tier does not let run.
// Nothing is written through the link, and the clone is untouched.
func TestReproduceRefuses(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	c := newChange(t, map[string]string{"go.mod": "module m\n", "pkg/a.go": "package pkg\n"}, map[string]string{"pkg/b.go": "package pkg\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(c.clone, "link")))
	require.NoError(t, os.Symlink(outside, filepath.Join(c.clone, "lïnk")))
	testkit.Git(t, c.clone, "add", "link", "lïnk")
	testkit.Git(t, c.clone, "update-index", "--add", "--cacheinfo", "160000,"+c.head+",sub")
	testkit.Git(t, c.clone, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a link and a submodule")
	c.head = testkit.Git(t, c.clone, "rev-parse", "HEAD")
	status := testkit.Git(t, c.clone, "status", "--porcelain")
	h := Harness{
		Confinement: contract.Confinement{Sandbox: sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeOff}), Tier: lang.TierTest},
		Git:         testkit.GitRunner([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}),
		Clone:       c.clone, Base: c.base, Head: c.head,
	}
	goTest := []string{"go", "test", "./..."}
	tests := []struct {
		name    string
		path    string
		content string
		command []string
		why     string
	}{
		{name: "a path out of the repository", path: "../x_test.go", why: `refused: the path "../x_test.go" is not a clean path inside the repository`},
		{name: "an absolute path", path: filepath.Join(outside, "x_test.go"), why: "is not a path inside the repository"},
		{name: "a path inside .git", path: ".git/hooks/pre-commit", why: "is a path inside .git"},
		{name: "a path under a committed link", path: "link/x_test.go", why: "refused: in the head's tree, link is a symbolic link: nothing is written through it or over it"},
		{name: "a path over a committed link", path: "link", why: "link is a symbolic link"},
		{name: "a path under a link git quotes", path: "lïnk/x_test.go", why: "has characters git quotes"},
		{name: "a path in a submodule", path: "sub/x_test.go", why: "in the head's tree, sub is a submodule"},
		{name: "a path under a file", path: "go.mod/x_test.go", why: "go.mod is a file, not a folder"},
		{name: "a path over a folder", path: "pkg", why: "pkg is a folder: a reproduction is a file"},
		{name: "too big", path: "x_test.go", content: string(make([]byte, MaxReproductionBytes+1)), why: "over the 1048576 a reproduction may have"},
		{name: "a program of the workspace's", path: "x_test.go", command: []string{"./run.sh"}, why: "refused: the command cannot run unattended"},
		{name: "a fetch", path: "x_test.go", command: []string{"go", "mod", "download"}, why: "refused: the command fetches from the network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &Reproduction{Path: tt.path, Content: cmp.Or(tt.content, "package m\n"), Command: goTest, Expect: "boom"}
			if tt.command != nil {
				r.Command = tt.command
			}
			got, err := h.Reproduce(t.Context(), Finding{File: "go.mod", Line: 1, Claim: "c", Reproduction: r})
			require.NoError(t, err)
			assert.False(t, got.Confirmed)
			assert.Contains(t, got.Why, tt.why)
			assert.Nil(t, got.Reproduction.Head, "not run")
		})
	}
	t.Cleanup(func() {
		entries, err := os.ReadDir(outside)
		require.NoError(t, err)
		assert.Empty(t, entries, "nothing was written through the link")
		assert.Empty(t, scratchLeft(t, c.clone), "nothing was checked out")
		assert.Equal(t, status, testkit.Git(t, c.clone, "status", "--porcelain"), "the clone is untouched")
	})
}

// TestReproduceBadHarness: a harness without its parts, or with commits
// not named by full SHAs, is the caller's error, before anything runs.
func TestReproduceBadHarness(t *testing.T) {
	t.Parallel()
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeOff})
	git := testkit.GitRunner(nil)
	sha := "0123456789012345678901234567890123456789"
	for _, h := range []Harness{
		{Git: git, Clone: "x", Base: sha, Head: sha},
		{Confinement: contract.Confinement{Sandbox: sb}, Git: git, Clone: "x", Base: "main", Head: sha},
		{Confinement: contract.Confinement{Sandbox: sb}, Git: git, Clone: "x", Base: sha, Head: "--output=/tmp/x"},
	} {
		_, err := h.Reproduce(t.Context(), Finding{})
		assert.ErrorContains(t, err, "reproduce a finding: ")
	}
}

// TestWriteBeneathNeverFollowsLinks: where the copy has a link (a tree
// the harness did not look at), the file is not written through it, nor
// over it.
func TestWriteBeneathNeverFollowsLinks(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "f"), filepath.Join(dir, "file")))
	assert.Error(t, writeBeneath(dir, "link/x_test.go", "x"))
	assert.Error(t, writeBeneath(dir, "link/deeper/x_test.go", "x"))
	require.NoError(t, writeBeneath(dir, "file", "x"), "a link at the path is replaced")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was written through a link")
	fi, err := os.Lstat(filepath.Join(dir, "file"))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())
	require.NoError(t, writeBeneath(dir, "a/b/c.txt", "new"))
	require.NoError(t, writeBeneath(dir, "a/b/c.txt", "again"), "a file is replaced")
	got, err := os.ReadFile(filepath.Join(dir, "a", "b", "c.txt"))
	require.NoError(t, err)
	assert.Equal(t, "again", string(got))
}

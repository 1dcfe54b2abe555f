package testclass

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/contract"
)

// testOptions are the options of a classification in pr's clone, with a
// sandbox whose confined builds read the user's build cache, and skips
// (or, with CORE_REQUIRE_BWRAP=1, fails) when ecosystem's toolchain is
// missing.
func testOptions(t *testing.T, pr pullRequest, ecosystem string) Options {
	t.Helper()
	sb := sandboxtest.Toolchain(t, ecosystem)
	return Options{
		Confinement: contract.Confinement{Sandbox: sb, Tier: lang.TierTest, Timeout: 10 * time.Minute}, // a busy machine compiles slowly
		Git:         testGit(gitEnv(t)),
		Clone:       pr.clone,
	}
}

// byPath is the classification's files by their path.
func byPath(c Classification) map[string]Classified {
	out := map[string]Classified{}
	for _, f := range c.Files {
		out[f.Path] = f
	}
	return out
}

// TestClassifyGo: a real bug fix whose test fails on the base and passes
// on the head tests the change; a changed test that passes on both does
// not; a new package whose test fails fails on the head; a link is not
// run; the fixed code itself is no test file. Every run is confined.
func TestClassifyGo(t *testing.T) {
	t.Parallel()
	pr := newPullRequest(t, map[string]string{
		"go.mod":              "module example.com/calc\n\ngo 1.21\n",
		"calc.go":             "package calc\n\nfunc Add(a, b int) int { return a - b }\n\nfunc Mul(a, b int) int { return a * b }\n",
		"calc_test.go":        "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"mul\")\n\t}\n}\n",
		"other/other.go":      "package other\n\nfunc One() int { return 1 }\n",
		"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(\"one\")\n\t}\n}\n",
	}, map[string]string{
		"calc.go":               "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a * b }\n",
		"calc_test.go":          "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"mul\")\n\t}\n}\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"add is wrong\")\n\t}\n}\n",
		"other/other_test.go":   "package other\n\nimport \"testing\"\n\n// TestOne: one is one.\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(\"one\")\n\t}\n}\n",
		"broken/broken.go":      "package broken\n\nfunc Two() int { return 3 }\n",
		"broken/broken_test.go": "package broken\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(\"two is not 2\")\n\t}\n}\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(pr.clone, "evil"), 0o755))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(pr.clone, "evil", "link_test.go")))
	testkit.Git(t, pr.clone, "add", "evil/link_test.go")
	testkit.Git(t, pr.clone, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a link")
	pr.head, pr.changed = testkit.Git(t, pr.clone, "rev-parse", "HEAD"), append(pr.changed, "evil/link_test.go")
	o := testOptions(t, pr, "go")

	c, err := Classify(t.Context(), o, pr.base, pr.head, pr.changed)
	require.NoError(t, err)
	got := byPath(c)
	require.Len(t, got, 4, "%+v", c.Files)
	assert.NotContains(t, got, "calc.go", "a changed file that is not a test")

	fix := got["calc_test.go"]
	assert.Equal(t, TestsChange, fix.Class, "%+v", fix)
	assert.Equal(t, [][]string{{"go", "test", ".", "-run", "^(TestMul|TestAdd)$"}}, fix.Commands, "one go test runs the file's tests")
	assert.Equal(t, 1, fix.Base.Exit)
	assert.Contains(t, fix.Base.Output, "add is wrong", "the head's test ran on the base's code")
	assert.True(t, fix.Head.Passed)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, fix.Base.OutputHash)
	assert.False(t, fix.New)

	same := got["other/other_test.go"]
	assert.Equal(t, NotTesting, same.Class, "%+v", same)
	assert.Equal(t, [][]string{{"go", "test", "./other", "-run", "^TestOne$"}}, same.Commands)

	bad := got["broken/broken_test.go"]
	assert.Equal(t, FailsOnHead, bad.Class, "%+v", bad)
	assert.True(t, bad.New)
	assert.Contains(t, bad.Head.Output, "two is not 2")

	assert.Equal(t, Refused, got["evil/link_test.go"].Class)
	assert.Empty(t, got["evil/link_test.go"].Commands, "a link is never run")

	assert.NoDirExists(t, pr.clone+".tests-head", "the checkouts are removed")
	assert.NoDirExists(t, pr.clone+".tests-base")
	assert.Empty(t, testkit.Git(t, pr.clone, "status", "--porcelain"), "the clone is not disturbed")
	md := Markdown(c)
	assert.Contains(t, md, "| `calc_test.go` | `go test . -run ^(TestMul\\|TestAdd)$` | failed, exit 1")
}

// TestClassifyPython: pytest on one file, on both sides: a fix's test, a
// new test that already passes on the base (with the file copied in), and
// a test that fails on the head.
func TestClassifyPython(t *testing.T) {
	t.Parallel()
	pr := newPullRequest(t, map[string]string{
		"calc.py":      "def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n",
		"test_calc.py": "from calc import neg\n\n\ndef test_neg():\n    assert neg(1) == -1\n",
	}, map[string]string{
		"calc.py":       "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n",
		"test_calc.py":  "from calc import add, neg\n\n\ndef test_neg():\n    assert neg(1) == -1\n\n\ndef test_add():\n    assert add(2, 3) == 5, 'add is wrong'\n",
		"test_neg.py":   "from calc import neg\n\n\ndef test_twice():\n    assert neg(neg(2)) == 2\n",
		"wrong_test.py": "from calc import add\n\n\ndef test_wrong():\n    assert add(1, 1) == 3, 'wrong on purpose'\n",
	})
	o := testOptions(t, pr, "python")
	c, err := Classify(t.Context(), o, pr.base, pr.head, pr.changed)
	require.NoError(t, err)
	got := byPath(c)
	require.Len(t, got, 3, "%+v", c.Files)
	assert.Equal(t, TestsChange, got["test_calc.py"].Class, "%+v", got["test_calc.py"])
	assert.Contains(t, got["test_calc.py"].Base.Output, "add is wrong")
	assert.Equal(t, [][]string{{"python3", "-m", "pytest", "-q", "test_calc.py"}}, got["test_calc.py"].Commands)
	assert.Equal(t, NotTesting, got["test_neg.py"].Class, "%+v", got["test_neg.py"])
	assert.True(t, got["test_neg.py"].New)
	assert.Contains(t, got["test_neg.py"].Reason, "copied into the base")
	assert.Equal(t, FailsOnHead, got["wrong_test.py"].Class, "%+v", got["wrong_test.py"])
}

// TestClassifyNode: node --test on one file, where package.json's scripts
// name no other runner.
func TestClassifyNode(t *testing.T) {
	t.Parallel()
	pr := newPullRequest(t, map[string]string{
		"package.json": `{"name": "calc", "version": "1.0.0", "scripts": {"test": "node --test"}}`,
		"calc.js":      "exports.add = (a, b) => a - b;\n",
	}, map[string]string{
		"calc.js":           "exports.add = (a, b) => a + b;\n",
		"test/calc.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc.js');\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n",
	})
	o := testOptions(t, pr, "node")
	c, err := Classify(t.Context(), o, pr.base, pr.head, pr.changed)
	require.NoError(t, err)
	require.Len(t, c.Files, 1)
	f := c.Files[0]
	assert.Equal(t, [][]string{{"node", "--test", "test/calc.test.js"}}, f.Commands)
	assert.Equal(t, TestsChange, f.Class, "%+v", f)
	assert.True(t, f.New)
}

// TestClassifyRust: a new integration test runs alone with cargo test
// --test; a source file's own tests run with the crate's, on the head
// only: they are in the code they test.
func TestClassifyRust(t *testing.T) {
	t.Parallel()
	pr := newPullRequest(t, map[string]string{
		"Cargo.toml": "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn zero() {\n        assert_eq!(super::add(0, 0), 0);\n    }\n}\n",
	}, map[string]string{
		"src/lib.rs":   "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn zero() {\n        assert_eq!(super::add(0, 0), 0);\n    }\n\n    #[test]\n    fn two() {\n        assert_eq!(super::add(1, 1), 2);\n    }\n}\n",
		"tests/add.rs": "#[test]\nfn adds() {\n    assert_eq!(calc::add(2, 3), 5, \"add is wrong\");\n}\n",
	})
	o := testOptions(t, pr, "rust")
	c, err := Classify(t.Context(), o, pr.base, pr.head, pr.changed)
	require.NoError(t, err)
	got := byPath(c)
	require.Len(t, got, 2, "%+v", c.Files)
	it := got["tests/add.rs"]
	assert.Equal(t, [][]string{{"cargo", "test", "--test", "add"}}, it.Commands)
	assert.Equal(t, TestsChange, it.Class, "%+v", it)
	assert.Contains(t, it.Base.Output, "add is wrong")
	lib := got["src/lib.rs"]
	assert.Equal(t, [][]string{{"cargo", "test"}}, lib.Commands)
	assert.Equal(t, HeadOnly, lib.Class, "%+v", lib)
	assert.Contains(t, lib.Reason, "its tests are in the code they test")
	assert.Contains(t, lib.Reason, "the crate's tests ran, all of them")
}

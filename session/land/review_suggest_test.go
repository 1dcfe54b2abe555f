package land

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
)

func TestSuggest(t *testing.T) {
	t.Parallel()
	// The head's a.go has 30 lines; the pull request's diff shows lines
	// 1-6 and 20-25 of it (two hunks).
	var src []string
	for i := 1; i <= 30; i++ {
		src = append(src, "line "+string(rune('A'-1+i)))
	}
	head := func(path string) ([]string, error) { return src, nil }
	files := []gh.PullFile{{Path: "a.go", Status: "modified", Patch: "@@ -1,4 +1,6 @@ x\n ctx\n+a\n+b\n ctx\n@@ -18,5 +20,6 @@ func\n ctx\n+c\n"}}
	header := "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n"
	tests := []struct {
		name     string
		diff     string
		comments []gh.DraftComment
		rest     []string
	}{
		{name: "one line changed", diff: header + "@@ -3 +3 @@\n-line C\n+line c\n",
			comments: []gh.DraftComment{{Path: "a.go", Line: 3, Body: "```suggestion\nline c\n```"}}},
		{name: "lines changed", diff: header + "@@ -21,2 +21,3 @@\n-line U\n-line V\n+u\n+v\n+w\n",
			comments: []gh.DraftComment{{Path: "a.go", StartLine: 21, Line: 22, Body: "```suggestion\nu\nv\nw\n```"}}},
		{name: "lines removed", diff: header + "@@ -4,2 +3,0 @@\n-line D\n-line E\n",
			comments: []gh.DraftComment{{Path: "a.go", StartLine: 4, Line: 5, Body: "```suggestion\n```"}}},
		{name: "inserted after a line", diff: header + "@@ -5,0 +6 @@\n+new\n",
			comments: []gh.DraftComment{{Path: "a.go", Line: 5, Body: "```suggestion\nline E\nnew\n```"}}},
		{name: "inserted at the top", diff: header + "@@ -0,0 +1 @@\n+// top\n",
			comments: []gh.DraftComment{{Path: "a.go", Line: 1, Body: "```suggestion\n// top\nline A\n```"}}},
		{name: "backticks in the text", diff: header + "@@ -2 +2 @@\n-line B\n+x := \"```\"\n",
			comments: []gh.DraftComment{{Path: "a.go", Line: 2, Body: "````suggestion\nx := \"```\"\n````"}}},
		{name: "too long for a comment", diff: header + "@@ -3 +3 @@\n-line C\n+" + strings.Repeat("x", maxSuggestion) + "\n",
			rest: []string{header + "@@ -3 +3 @@\n-line C\n+" + strings.Repeat("x", maxSuggestion) + "\n"}},
		{name: "outside the diff", diff: header + "@@ -10 +10 @@\n-line J\n+j\n",
			rest: []string{header + "@@ -10 +10 @@\n-line J\n+j\n"}},
		{name: "across two of its hunks", diff: header + "@@ -6,15 +6 @@\n-x\n+y\n",
			rest: []string{header + "@@ -6,15 +6 @@\n-x\n+y\n"}},
		{name: "a file it does not change", diff: "diff --git a/b.go b/b.go\n--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-b\n+B\n",
			rest: []string{"diff --git a/b.go b/b.go\n--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-b\n+B\n"}},
		{name: "a new file", diff: "diff --git a/n.go b/n.go\nnew file mode 100644\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+package n\n",
			rest: []string{"diff --git a/n.go b/n.go\nnew file mode 100644\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+package n\n"}},
		{name: "a removed file", diff: "diff --git a/a.go b/a.go\ndeleted file mode 100644\n--- a/a.go\n+++ /dev/null\n@@ -1,30 +0,0 @@\n-line A\n",
			rest: []string{"diff --git a/a.go b/a.go\ndeleted file mode 100644\n--- a/a.go\n+++ /dev/null\n@@ -1,30 +0,0 @@\n-line A\n"}},
		{name: "a binary file", diff: "diff --git a/a.go b/a.go\nindex 1..2 100644\nBinary files a/a.go and b/a.go differ\n",
			rest: []string{"diff --git a/a.go b/a.go\nindex 1..2 100644\nBinary files a/a.go and b/a.go differ\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Suggest(ParseDiff(tt.diff), files, head)
			require.NoError(t, err)
			assert.Equal(t, tt.comments, got.Comments)
			assert.Equal(t, tt.rest, got.Rest)
		})
	}
}

func TestParseDiffNoNewline(t *testing.T) {
	t.Parallel()
	fs := ParseDiff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n")
	require.Len(t, fs, 1)
	require.Len(t, fs[0].hunks, 1)
	assert.Equal(t, []string{"b"}, fs[0].hunks[0].lines)
	assert.True(t, strings.HasSuffix(fs[0].patch(fs[0].hunks...), "\\ No newline at end of file\n"))
}

func TestParseDiffPathWithABlank(t *testing.T) {
	t.Parallel()
	fs := ParseDiff("diff --git a/x y.txt b/x y.txt\n--- a/x y.txt\t\n+++ b/x y.txt\t\n@@ -1 +1 @@\n-a\n+b\n")
	require.Len(t, fs, 1)
	assert.Equal(t, "x y.txt", fs[0].path)
}

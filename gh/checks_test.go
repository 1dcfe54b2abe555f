package gh

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestFailingChecks(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	sha, err := repo.Commit(t.Context(), "fix/ci", "change", map[string]string{"a.go": "package a\n"})
	require.NoError(t, err)
	var notes []ghfake.Annotation
	for i := range 70 {
		notes = append(notes, ghfake.Annotation{
			Path: "a.go", StartLine: i + 1, EndLine: i + 2, AnnotationLevel: "failure",
			Title: "vet", Message: fmt.Sprintf("problem %d\u200b", i),
		})
	}
	runs := []ghfake.CheckRun{
		{Name: "vet", Conclusion: "failure", Title: "70 problems", Summary: "see below<!-- hidden -->", Text: strings.Repeat("x", 5000), Annotations: notes},
		{Name: "test", Conclusion: "timed_out"},
		{Name: "deploy", Conclusion: "action_required"},
		{Name: "e2e", Conclusion: "cancelled"},
		{Name: "lint", Conclusion: "success"},
		{Name: "docs", Conclusion: "neutral"},
		{Name: "fmt", Conclusion: "skipped"},
		{Name: "build", Status: "in_progress"},
		{Name: "flaky", Conclusion: "failure"},
		{Name: "flaky", Conclusion: "success"}, // the re-run passed
	}
	for _, r := range runs {
		r.HeadSHA = sha
		_, err := g.AddCheckRun("octo", "hello", r)
		require.NoError(t, err)
	}
	for _, ref := range []string{"fix/ci", sha} {
		checks, err := c.FailingChecks(t.Context(), "octo", "hello", ref)
		require.NoError(t, err, ref)
		byName := make(map[string]Check)
		for _, ch := range checks {
			byName[ch.Name] = ch
		}
		require.Len(t, byName, 4, ref)
		assert.Equal(t, "timed_out", byName["test"].Conclusion)
		assert.Equal(t, "action_required", byName["deploy"].Conclusion)
		assert.Equal(t, "cancelled", byName["e2e"].Conclusion)

		vet := byName["vet"]
		assert.Equal(t, "failure", vet.Conclusion)
		assert.Equal(t, "70 problems", vet.Title)
		assert.Equal(t, "see below", vet.Summary, "sanitized")
		assert.True(t, strings.HasPrefix(vet.Text, strings.Repeat("x", maxCheckText)+"\n[… 904 more bytes cut]"), vet.Text[maxCheckText:])
		assert.Contains(t, vet.HTMLURL, "/octo/hello/runs/")
		require.Len(t, vet.Annotations, maxAnnotations, "capped")
		assert.Equal(t, Annotation{Path: "a.go", StartLine: 1, EndLine: 2, Level: "failure", Title: "vet", Message: "problem 0"}, vet.Annotations[0])
		assert.Equal(t, "problem 49", vet.Annotations[49].Message)
	}

	_, err = c.FailingChecks(t.Context(), "octo", "hello", "no-such-branch")
	assert.ErrorContains(t, err, `no commit "no-such-branch" in octo/hello`)
}

func TestCapText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		limit          int
	}{
		{name: "short", in: "abc", limit: 3, want: "abc"},
		{name: "cut", in: "abcdef", limit: 4, want: "abcd\n[… 2 more bytes cut]"},
		{name: "rune boundary", in: "aé", limit: 2, want: "a\n[… 2 more bytes cut]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := capText(tt.in, tt.limit)
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got))
		})
	}
}

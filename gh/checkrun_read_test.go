package gh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestCheckRunNamed(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	sha, err := repo.Commit(t.Context(), "fix/ci", "change", map[string]string{"a.go": "package a\n"})
	require.NoError(t, err)
	text := "```json core-receipt\n{\"a\":\"<!-- kept -->\"}\n```\n"
	for _, r := range []ghfake.CheckRun{
		{Name: "core/contract", Conclusion: "failure", Summary: "old", Text: "old"},
		{Name: "core/contract", Conclusion: "success", Summary: "Receipt: `sha256:x`", Text: text},
		{Name: "vet", Conclusion: "success", Summary: "other"},
	} {
		r.HeadSHA = sha
		_, err := g.AddCheckRun("octo", "hello", r)
		require.NoError(t, err)
	}
	got, err := c.CheckRunNamed(t.Context(), "octo", "hello", sha, "core/contract")
	require.NoError(t, err)
	assert.Equal(t, "success", got.Conclusion, "the latest run of the name")
	assert.Equal(t, "Receipt: `sha256:x`", got.Summary)
	assert.Equal(t, text, got.Text, "the text as its maker wrote it, not sanitized")
	assert.Equal(t, sha, got.HeadSHA)

	_, err = c.CheckRunNamed(t.Context(), "octo", "hello", sha, "core/other")
	require.ErrorIs(t, err, ErrNoCheckRun)
	_, err = c.CheckRunNamed(t.Context(), "octo", "hello", "no-such-branch", "core/contract")
	require.ErrorContains(t, err, `no commit "no-such-branch" in octo/hello`)
}

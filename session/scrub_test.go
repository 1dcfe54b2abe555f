package session

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
)

// TestScrubKeepsUpWithTheTokenSource: a token the source hands out during
// the run (a refresh before pushing) is scrubbed like the first.
func TestScrubKeepsUpWithTheTokenSource(t *testing.T) {
	t.Parallel()
	n := 0
	client := gh.WithTokens(github.NewClient(nil), func(context.Context) (string, error) {
		n++
		return fmt.Sprintf("ghs_token_number_%d", n), nil
	})
	_, err := client.Token(t.Context())
	require.NoError(t, err)
	opts := Options{
		Services: Services{GitHub: client, Secrets: []string{"sk-model-key"}},
	}
	s := &run{opts: opts, scrubber: newScrubber(opts)}
	assert.Equal(t, "[redacted] [redacted]", s.scrub("ghs_token_number_1 sk-model-key"))
	_, err = client.Token(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "[redacted] and [redacted]", s.scrub("ghs_token_number_2 and ghs_token_number_1"))
}

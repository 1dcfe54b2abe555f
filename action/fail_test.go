package action

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/session"
)

// TestFailNamesWhoMustAct: a run that could not start says, in the step's
// error and on the status comment, whose failure it was: an outage is
// infrastructure, a bad setting configuration, anything else an error.
func TestFailNamesWhoMustAct(t *testing.T) {
	t.Parallel()
	g, client := actionGitHub(t)
	tests := []struct {
		name string
		err  error
		kind string
	}{
		{name: "an outage", err: &session.InfraError{Err: errors.New("get repository octo/hello: 503 Service Unavailable")}, kind: "infrastructure"},
		{name: "a bad setting", err: &session.ConfigError{Option: "max-turns", Err: errors.New("must be positive")}, kind: "configuration"},
		{name: "anything else", err: errors.New("something broke"), kind: "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: tt.name})
			require.NoError(t, err)
			var out strings.Builder
			outputs := filepath.Join(t.TempDir(), "outputs")
			getenv := func(k string) string { return map[string]string{"GITHUB_OUTPUT": outputs}[k] }
			r := &runner{
				a:      githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(&out)),
				status: &statusComment{client: client, owner: "octo", repo: "hello", number: n, runID: "r1"},
			}
			assert.ErrorIs(t, r.fail(t.Context(), tt.err), ErrFailed)
			assert.Contains(t, out.String(), "::error::core failed ("+tt.kind+"): ")
			comments := g.Comments("octo", "hello", n)
			require.Len(t, comments, 1)
			assert.Contains(t, comments[0].Body, "core could not do it ("+tt.kind+"): ")
			written, err := os.ReadFile(outputs)
			require.NoError(t, err)
			assert.Contains(t, string(written), "failed", "the status output")
		})
	}
}

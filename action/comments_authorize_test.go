package action

import (
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/session"
)

// TestListenerAsksMayAct: the listener's answers are gh.MayAct's: the
// starter, in any letter case, reaches the run with a stop; a maintainer
// or a triager who did not start it does not (only an admin would).
func TestListenerAsksMayAct(t *testing.T) {
	t.Parallel()
	g := testkit.NewGitHub(t)
	g.AddToken("ghs_listen", "core-bot")
	g.MustAddRepo(t, "octo", "hello", map[string]string{"a": "a\n"})
	for login, perm := range map[string]string{"core-bot": "write", "alice": "write", "mo": "maintain", "tri": "triage"} {
		require.NoError(t, g.SetPermission("octo", "hello", login, perm))
	}
	n, err := g.AddIssue("octo", "hello", testkit.Issue{Title: "x"})
	require.NoError(t, err)
	trigger, err := g.AddComment("octo", "hello", n, testkit.Comment{User: "alice", Body: "/core fix"})
	require.NoError(t, err)
	client, err := gh.New(gh.Credentials{Token: "ghs_listen", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	var out strings.Builder
	log := githubactions.New(githubactions.WithGetenv(func(string) string { return "" }), githubactions.WithWriter(&out))
	l := newListener(client, log, "octo", "hello", n, "alice", trigger, time.Now().Add(-time.Minute), session.NewControl())
	for _, c := range []testkit.Comment{
		{User: "mo", Body: "/core stop"},
		{User: "tri", Body: "/core stop"},
		{User: "ALICE", Body: "/core stop"},
	} {
		_, err := g.AddComment("octo", "hello", n, c)
		require.NoError(t, err)
	}
	l.poll(t.Context())
	var replies []string
	for _, c := range g.Comments("octo", "hello", n) {
		if c.User == "core-bot" {
			replies = append(replies, c.Body)
		}
	}
	assert.Equal(t, []string{
		"core: @mo, only @alice, who started this run, or a repository admin can stop it.",
		"core: @tri, only @alice, who started this run, or a repository admin can stop it.",
		"core: @ALICE, the run has not started yet.",
	}, replies)
}

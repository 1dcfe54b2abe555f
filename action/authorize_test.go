package action

import (
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
)

// actionGitHub is a testkit GitHub with octo/hello, and the client of the
// workflow's token on it.
func actionGitHub(t *testing.T) (*ghfake.GitHub, *gh.Client) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.AddToken("ghs_action", "github-actions[bot]")
	g.MustAddRepo(t, "octo", "hello", map[string]string{"a": "a\n"})
	client, err := gh.New(gh.Credentials{Token: "ghs_action", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	return g, client
}

// TestOnlyWritersAndAllowedBotsAsk: the Action works for a person with
// write, maintain or admin on the repository, and for a bot the workflow
// named in allowed_bots; anyone else is refused with the reason, a person
// with a reply on the issue, a bot without one, and nothing else happens
// (no reaction, no status comment).
func TestOnlyWritersAndAllowedBotsAsk(t *testing.T) {
	t.Parallel()
	g, client := actionGitHub(t)
	for login, role := range map[string]string{"wanda": "write", "max": "maintain", "ada": "admin", "rita": "read", "tria": "triage", "dependabot[bot]": "write", "helper": "write"} {
		require.NoError(t, g.SetPermission("octo", "hello", login, role))
	}
	tests := []struct {
		name, login, typ string
		allowedBots      []string
		refused          string // "" for allowed
		reply            bool
	}{
		{name: "write", login: "wanda", typ: "User"},
		{name: "maintain", login: "max", typ: "User"},
		{name: "admin", login: "ada", typ: "User"},
		{name: "read", login: "rita", typ: "User", refused: "@rita, only people with write, maintain or admin permission on octo/hello can ask core to work (your permission: read).", reply: true},
		{name: "triage", login: "tria", typ: "User", refused: "(your permission: triage)", reply: true},
		{name: "no permission at all", login: "stranger", typ: "User", refused: "(your permission: none)", reply: true},
		{name: "a bot by suffix, with write", login: "dependabot[bot]", typ: "Bot", refused: "dependabot[bot] is a bot account; core takes commands from people only"},
		{name: "a bot by type, with write", login: "helper", typ: "Bot", refused: "helper is a bot account"},
		{name: "a bot named in allowed_bots", login: "dependabot[bot]", typ: "Bot", allowedBots: []string{"Dependabot"}},
		{name: "another bot than the allowed one", login: "helper", typ: "Bot", allowedBots: []string{"dependabot"}, refused: "helper is a bot account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: tt.name})
			require.NoError(t, err)
			var out strings.Builder
			r := &runner{
				a:      githubactions.New(githubactions.WithGetenv(func(string) string { return "" }), githubactions.WithWriter(&out)),
				in:     Inputs{AllowedBots: tt.allowedBots},
				client: client, owner: "octo", repo: "hello",
				t: trigger{mode: ModeFix, number: n, actor: user{Login: tt.login, Type: tt.typ}, commentID: 1},
			}
			reason, err := r.authorize(t.Context())
			require.NoError(t, err)
			if tt.refused == "" {
				assert.Empty(t, reason)
				return
			}
			assert.Contains(t, reason, tt.refused)

			require.NoError(t, r.run(t.Context()), "a refusal is not a failed step")
			assert.Contains(t, out.String(), "::warning::core: refused: ")
			comments := g.Comments("octo", "hello", n)
			if !tt.reply {
				assert.Empty(t, comments, "a bot gets no reply")
				return
			}
			require.Len(t, comments, 1, "the refusal is the only comment: no status comment")
			assert.Equal(t, "core: "+reason, comments[0].Body)
		})
	}
}

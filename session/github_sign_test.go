package session

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/openapi"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/state"
)

// TestGitHubLandsThroughGitDataAPI: the session's commit lands through
// the Git Data API, never a git push; the commit on the branch holds the
// tree the checks ran on, and GitHub's verification of it is in the
// report and the pull request: verified for an App's installation token,
// unsigned for a user's token.
func TestGitHubLandsThroughGitDataAPI(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, token, login, signature string
		signed                        bool
	}{
		{name: "app token", token: "ghs_AppInstallationToken123", login: "core-app[bot]", signature: "verified (signed by GitHub for the App)", signed: true},
		{name: "personal token", token: testToken, login: "core-bot", signature: "unverified: unsigned"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newGitHubFixture(t)
			f.g.AddExpiringToken("ghs_AppInstallationToken123", "core-app[bot]", time.Now().Add(time.Hour))
			require.NoError(t, f.g.SetPermission("octo", "hello", "core-app[bot]", "write"))
			srv := llm.NewModelServer(t,
				llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: \"hello, world\\n\""),
				llm.ContentReply("tool: write_file\npath: sub/new.bin\ncontent: \"new\\n\""),
				llm.ContentReply("tool: done\nsummary: Greet the world"),
			)
			opts := f.options(t, srv)
			client, err := gh.New(gh.Credentials{Token: tt.token, APIURL: f.g.APIURL()}, nil)
			require.NoError(t, err)
			opts.Services.GitHub, opts.Services.Secrets = client, client.Secrets()
			opts.Goal.Prompt = "greet the world"
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)

			head, ok, err := f.repo.Head(t.Context(), rep.Branch)
			require.NoError(t, err)
			require.True(t, ok)
			require.NotEmpty(t, rep.Tree)
			assert.Equal(t, head, rep.Commit, "the report names the commit GitHub made")
			assert.Equal(t, rep.Tree, testkit.Git(t, f.repo.Dir(), "rev-parse", head+"^{tree}"), "the landed tree is the checked tree")
			assert.Equal(t, rep.Tree, rep.LandedTree)
			assert.Equal(t, "core", testkit.Git(t, f.repo.Dir(), "log", "-1", "--format=%an", head))
			raw := testkit.Git(t, f.repo.Dir(), "cat-file", "commit", head)
			assert.Equal(t, tt.signed, strings.Contains(raw, "\ngpgsig "), "GitHub signs for an App only")
			assert.True(t, strings.HasPrefix(rep.Signature, tt.signature), rep.Signature)
			pulls := f.g.Pulls("octo", "hello")
			require.Len(t, pulls, 1)
			assert.Contains(t, pulls[0].Body, "signature: "+tt.signature)
			var api bool
			for _, req := range f.g.Requests() {
				assert.NotContains(t, req.Path+req.Query.Get("service"), "receive-pack", "nothing is pushed with git")
				api = api || (req.Method == "POST" && req.Path == "/repos/octo/hello/git/commits")
			}
			assert.True(t, api, "the commit is made through the Git Data API")
			assert.Positive(t, openapi.RequireValid(t, openapi.GitHub(t), f.g, "/repos/octo/hello/git/"), "the Git Data API's requests are checked")
			var sum strings.Builder
			rep.WriteSummary(&sum)
			assert.Contains(t, sum.String(), "commit "+clip.Hash(head)+" signature: "+tt.signature, "the CLI's end summary says it")
			ws := testkit.Git(t, rep.workspace(opts), "rev-parse", "refs/heads/"+rep.Branch)
			assert.Equal(t, head, ws, "the workspace's branch is the landed commit")
			assertNoToken(t, opts, f, srv)
		})
	}
}

// TestGitHubSigningKeySignsAndPushes: with a signing key, the commit is
// signed here and pushed with git as it is: git verify-commit accepts it
// with the key in an allowed-signers file, and GitHub's word on it (a key
// the double does not know) is in the report.
func TestGitHubSigningKeySignsAndPushes(t *testing.T) {
	t.Parallel()
	f := newGitHubFixture(t)
	priv, pub := testkit.SSHKey(t, "")
	key, err := land.ParseSigningKey(priv)
	require.NoError(t, err)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: \"hello, world\\n\""),
		llm.ContentReply("tool: done\nsummary: Greet the world"),
	)
	opts := f.options(t, srv)
	opts.Goal.Prompt = "greet the world"
	opts.Landing.SigningKey = key
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	head, _, err := f.repo.Head(t.Context(), rep.Branch)
	require.NoError(t, err)
	assert.Equal(t, rep.Commit, head)
	allowed := filepath.Join(t.TempDir(), "allowed")
	require.NoError(t, os.WriteFile(allowed, []byte("core@users.noreply.github.com "+pub+"\n"), 0o600))
	testkit.Git(t, f.repo.Dir(), "-c", "gpg.ssh.allowedSignersFile="+allowed, "verify-commit", head)
	assert.Equal(t, "unverified: unknown_key", rep.Signature)
	var pushed bool
	for _, req := range f.g.Requests() {
		pushed = pushed || strings.HasSuffix(req.Path, "/git-receive-pack")
		assert.NotEqual(t, "/repos/octo/hello/git/commits", req.Path, "not through the API, which would drop the signature")
	}
	assert.True(t, pushed)
	secret := strings.Split(strings.TrimSpace(priv), "\n")[1]
	err = filepath.WalkDir(opts.Services.Store.Home(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		b, err := os.ReadFile(p)
		assert.NotContains(t, string(b), secret, "the key is in %s", p)
		return err
	})
	require.NoError(t, err)
	for _, req := range srv.Requests() {
		for _, m := range req.Messages {
			assert.NotContains(t, m.Content, secret, "the key never reaches the model")
		}
	}
}

// TestGitHubSigningKeyThatCannotSign: a passphrase-protected key is a
// configuration error before the model runs, and nothing lands.
func TestGitHubSigningKeyThatCannotSign(t *testing.T) {
	t.Parallel()
	f := newGitHubFixture(t)
	priv, _ := testkit.SSHKey(t, "a passphrase")
	key, err := land.ParseSigningKey(priv)
	require.NoError(t, err)
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: nothing"))
	opts := f.options(t, srv)
	opts.Goal.Prompt = "greet the world"
	opts.Landing.SigningKey = key
	_, err = Run(t.Context(), opts)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "signing-key", ce.Option)
	assert.ErrorContains(t, err, "passphrase-protected key is not supported")
	assert.Empty(t, srv.Requests(), "the model never ran")
	assert.Empty(t, f.g.Pulls("octo", "hello"))
}

package bot

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
)

// TestLocalRunLinksTheDraftPR runs a session in the bot with the scripted
// model: the status comment ends with the draft pull request's link.
func TestLocalRunLinksTheDraftPR(t *testing.T) {
	t.Parallel()
	srv := testkit.NewModelServer(t,
		testkit.ContentReply("tool: write_file\npath: hello.txt\ncontent: HELLO"),
		testkit.ContentReply("tool: done\nsummary: Shout"))
	var local *LocalRunner
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal }, func(b *Base) Runner {
		local = &LocalRunner{Base: b, Context: context.Background(), Options: func() (session.Options, error) {
			home := filepath.Join(t.TempDir(), "core")
			st, err := session.OpenStore(home)
			if err != nil {
				return session.Options{}, err
			}
			return session.Options{
				Store:   st,
				Sandbox: sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeOff, Path: os.Getenv("PATH")}),
				Client:  model.New(model.Config{BaseURL: srv.URL, Backoff: model.Backoff{Initial: time.Millisecond, Max: time.Millisecond}}),
				GitEnv:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
			}, nil
		}}
		return local
	})
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "local-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false)))
	require.Eventually(t, func() bool {
		run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
		return err == nil && run == nil && len(f.g.Pulls("octo", "hello")) == 1
	}, 30*time.Second, 50*time.Millisecond)
	local.Wait()
	pulls := f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	assert.True(t, pulls[0].Draft)
	assert.Contains(t, pulls[0].Body, "Closes #1")
	var status string
	for _, c := range botComments(f, n) {
		if strings.Contains(c.Body, "<!-- core:status:") {
			status = c.Body
		}
	}
	assert.Contains(t, status, "done: http")
	assert.Contains(t, status, "/octo/hello/pull/")
	assert.Contains(t, status, "(**UNVERIFIED**: the harness ran no checks)", "the status says what the contract says")
	assert.Empty(t, f.g.Dispatches("octo", "hello"), "local mode dispatches nothing")
}

func TestLocalRunWaitsForAWorkerThenFails(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal; c.Workers = 1; c.PendingTimeout = 300 * time.Millisecond }, func(b *Base) Runner {
		return &LocalRunner{Base: b, Context: context.Background(), Options: func() (session.Options, error) {
			<-release // the first run holds the only worker
			return session.Options{}, context.Canceled
		}}
	})
	defer close(release)
	var numbers []int
	for i := range 2 {
		n := f.addIssue(t)
		numbers = append(numbers, n)
		cid := f.addComment(t, n, "alice", "/core fix")
		f.deliver(t, "issue_comment", "w-"+itoa(int64(i)), commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	}
	require.Eventually(t, func() bool {
		for _, c := range botComments(f, numbers[1]) {
			if strings.Contains(c.Body, "failed: no worker was free for 300ms") {
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond)
}

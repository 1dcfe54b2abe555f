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
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session"
)

// localEnv is the environment a local run is set up from (package setup):
// the scripted model, no sandbox.
func localEnv(t testing.TB, srv *llm.ModelServer) map[string]string {
	return map[string]string{
		"CORE_SESSION_INFERENCE_URL": srv.URL, "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_IDLE_TIMEOUT": "0",
		"PATH": os.Getenv("PATH"), "HOME": testkit.GoHome(t),
	}
}

// waitFor polls a condition the bot reaches asynchronously (a local run
// ends in its own goroutine, with no delivery to wait on).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, testkit.Patience, 20*time.Millisecond, what)
}

// TestLocalRunLinksTheDraftPR runs a session in the bot with the scripted
// model, set up through setup from the bot's environment: the status
// comment ends with the draft pull request's link.
func TestLocalRunLinksTheDraftPR(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: HELLO"),
		llm.ContentReply("tool: done\nsummary: Shout"))
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal }, nil)
	f.env = localEnv(t, srv)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "local-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false)))
	waitFor(t, "the run ends with a pull request", func() bool {
		run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
		return err == nil && run == nil && len(f.g.Pulls("octo", "hello")) == 1 && strings.Contains(statusOf(f, n), "done: http")
	})
	require.NoError(t, f.bot.Shutdown(t.Context()))
	pulls := f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	assert.True(t, pulls[0].Draft)
	assert.Contains(t, pulls[0].Body, "Closes #1")
	runs := f.g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1, "the App's token makes the core/contract check run")
	assert.Equal(t, pulls[0].HeadSHA, runs[0].HeadSHA, "on the landed commit")
	assert.Equal(t, "core/contract", runs[0].Name)
	assert.Equal(t, "neutral", runs[0].Conclusion)
	assert.Equal(t, "UNVERIFIED: no checks ran", runs[0].Title)
	assert.Contains(t, runs[0].Summary, "### Checks\n\n> [!WARNING]\n> The harness ran no checks on the result", "the summary holds the contract's section")
	assert.Contains(t, pulls[0].Body, "signature: verified (signed by GitHub for the App)", "made through the Git Data API with the installation's token, GitHub signs it")
	st := statusOf(f, n)
	assert.Contains(t, st, "/octo/hello/pull/")
	assert.Contains(t, st, "(**UNVERIFIED**: the harness ran no checks)", "the status says what the contract says")
	assert.Empty(t, f.g.Dispatches("octo", "hello"), "local mode dispatches nothing")
	_, err := os.Stat(filepath.Join(f.dataDir, "core", "sessions"))
	assert.NoError(t, err, "sessions live under <data-dir>/core without CORE_HOME")
}

func TestLocalRunWaitsForAWorkerThenFails(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal; c.Workers = 1; c.PendingTimeout = 300 * time.Millisecond },
		func(ctx context.Context) (session.Options, error) {
			select { // the first run holds the only worker
			case <-release:
			case <-ctx.Done():
			}
			return session.Options{}, context.Canceled
		})
	defer close(release)
	var numbers []int
	for i := range 2 {
		n := f.addIssue(t)
		numbers = append(numbers, n)
		cid := f.addComment(t, n, "alice", "/core fix")
		f.deliver(t, "issue_comment", "w-"+itoa(int64(i)), commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	}
	waitFor(t, "the second run gives up", func() bool {
		return strings.Contains(statusOf(f, numbers[1]), "failed: no worker was free for 300ms")
	})
}

// TestRestartLeavesNothingInFlight: a bot abandoned during a local run
// (its process killed: no shutdown) leaves the run running in SQLite; the
// next bot on the same data directory fails it, says so in the status
// comment, and the issue takes a new /core fix.
func TestRestartLeavesNothingInFlight(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	hold := make(chan struct{})
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal }, func(ctx context.Context) (session.Options, error) {
		started <- struct{}{}
		select { // the session of a process that is about to die
		case <-hold:
		case <-ctx.Done():
		}
		return session.Options{}, context.Canceled
	})
	defer close(hold)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "k-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	f.settle(t)
	testkit.Receive(t, started, "the local run's session to start")
	waitFor(t, "the run is running", func() bool {
		run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
		return err == nil && run != nil && run.State == StateRunning
	})
	stuck, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)

	// The first process is gone without a word; a second starts.
	second := f.newBot(t)
	t.Cleanup(func() { _ = second.Shutdown(context.Background()) })
	abandoned, err := second.Recover(t.Context())
	require.NoError(t, err)
	require.Len(t, abandoned, 1)
	assert.Equal(t, stuck.ID, abandoned[0].ID)
	active, err := second.Store().ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, active, "no run in flight, the issue is free")
	got, err := second.Store().GetRun(t.Context(), stuck.ID)
	require.NoError(t, err)
	assert.Equal(t, StateFailed, got.State)
	assert.Contains(t, statusOf(f, n), "failed: the bot restarted while this run was in flight")
	counts, err := second.Store().CountByState(t.Context())
	require.NoError(t, err)
	assert.Zero(t, counts[StateQueued]+counts[StateRunning])
}

// TestShutdownFailsLocalRuns: a graceful shutdown stops the local runs and
// says so; nothing is left running.
func TestShutdownFailsLocalRuns(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal }, func(ctx context.Context) (session.Options, error) {
		started <- struct{}{}
		<-ctx.Done()
		return session.Options{}, ctx.Err()
	})
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "s-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	f.settle(t)
	testkit.Receive(t, started, "the local run's session to start")
	require.NoError(t, f.bot.Shutdown(t.Context()))
	assert.Contains(t, statusOf(f, n), "failed: the bot shut down while this run was in flight")
	store, err := OpenSQLite(t.Context(), filepath.Join(f.dataDir, "bot.db"))
	require.NoError(t, err)
	defer store.Close()
	active, err := store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, active)
}

package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lifecycle of a box's start (acquireWith), with starts that are
// functions: no bwrap, so these run everywhere, fast.

// fakeInst is a running box instance that holds nothing on the host.
func fakeInst() *boxInst { return &boxInst{done: make(chan struct{}), dirFD: -1} }

func emptyBox() *Box { return &Box{s: &Sandbox{}, procs: map[string]*Process{}} }

// A slow start holds no lock: Close returns while the box still starts,
// a command that gives up waiting (its ctx) is not held, and the box that
// started after Close is stopped, never handed out.
func TestBoxSlowStartBlocksNeitherCloseNorOthers(t *testing.T) {
	t.Parallel()
	b := emptyBox()
	release := make(chan struct{})
	started := make(chan struct{})
	slow := func(context.Context, *boxInst) (*boxInst, error) {
		close(started)
		<-release
		return fakeInst(), nil
	}
	fits := func(*boxInst) bool { return true }
	first := make(chan error, 1)
	go func() {
		_, err := b.acquireWith(context.Background(), fits, slow)
		first <- err
	}()
	testkit.Receive(t, started, "the box's start to begin")

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	second := make(chan error, 1)
	go func() {
		_, err := b.acquireWith(ctx, fits, func(context.Context, *boxInst) (*boxInst, error) {
			return nil, errors.New("a second start while the first is under way")
		})
		second <- err
	}()
	assert.ErrorIs(t, testkit.Receive(t, second, "a command that gave up waiting for the start"), context.DeadlineExceeded)

	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	require.NoError(t, testkit.Receive(t, closed, "Close while the box starts"))

	close(release)
	assert.ErrorIs(t, testkit.Receive(t, first, "the start that Close overtook"), errBoxClosed)
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Nil(t, b.inst, "a box started after Close is not kept")
}

// One start serves every command that waited for it.
func TestBoxStartServesEveryWaiter(t *testing.T) {
	t.Parallel()
	b := emptyBox()
	release := make(chan struct{})
	starts := 0
	start := func(context.Context, *boxInst) (*boxInst, error) {
		starts++ // under no lock: only one start may run at a time, or -race says so
		<-release
		return fakeInst(), nil
	}
	fits := func(*boxInst) bool { return true }
	got := make(chan *boxInst, 3)
	for range 3 {
		go func() {
			inst, err := b.acquireWith(context.Background(), fits, start)
			assert.NoError(t, err)
			got <- inst
		}()
	}
	close(release)
	one := testkit.Receive(t, got, "the first command's box")
	for range 2 {
		assert.Same(t, one, testkit.Receive(t, got, "a waiting command's box"))
	}
	assert.Equal(t, 1, starts, "one start for three commands")
	assert.EqualValues(t, 3, one.active.Load(), "each command holds the box")
}

// A failed start is not final: the box is tried again once its wait is
// over, and a start that succeeds clears the failure.
func TestBoxFailedStartIsRetried(t *testing.T) {
	t.Parallel()
	b := emptyBox()
	fits := func(*boxInst) bool { return true }
	boom := errors.New("bwrap: out of processes for a moment")
	_, err := b.acquireWith(context.Background(), fits, func(context.Context, *boxInst) (*boxInst, error) { return nil, boom })
	require.ErrorIs(t, err, boom)

	called := false
	_, err = b.acquireWith(context.Background(), fits, func(context.Context, *boxInst) (*boxInst, error) {
		called = true
		return fakeInst(), nil
	})
	assert.ErrorIs(t, err, boom, "right after a failure, commands get sandboxes of their own")
	assert.False(t, called, "no second start inside the wait")

	b.mu.Lock()
	b.failedAt = time.Now().Add(-time.Hour) // the wait is over
	b.mu.Unlock()
	inst, err := b.acquireWith(context.Background(), fits, func(context.Context, *boxInst) (*boxInst, error) {
		called = true
		return fakeInst(), nil
	})
	require.NoError(t, err)
	assert.True(t, called, "the start is tried again")
	assert.NotNil(t, inst)
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.NoError(t, b.failed)
	assert.Zero(t, b.failures)
}

// A start cancelled by its command is no failure of the box.
func TestBoxCancelledStartIsNoFailure(t *testing.T) {
	t.Parallel()
	b := emptyBox()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.acquireWith(ctx, func(*boxInst) bool { return true }, func(ctx context.Context, _ *boxInst) (*boxInst, error) { return nil, ctx.Err() })
	require.ErrorIs(t, err, context.Canceled)
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.NoError(t, b.failed)
}

func TestRetryAtDoublesUpToAMinute(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	for failures, want := range map[int]time.Duration{
		1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 6: 32 * time.Second,
		7: time.Minute, 100: time.Minute,
	} {
		assert.Equal(t, at.Add(want), retryAt(at, failures), "after %d failures", failures)
	}
}

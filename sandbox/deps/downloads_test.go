package deps

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDownloadsClaim: one command at a time downloads a workspace's
// modules; another waits for it, says so, and then finds them downloaded;
// other module files are downloaded again.
func TestDownloadsClaim(t *testing.T) {
	t.Parallel()
	var d Downloads
	noWait := func(what string) func() {
		t.Errorf("waited for %s with nothing under way", what)
		return func() {}
	}
	_, release, err := d.Claim(t.Context(), "/ws", "key", noWait)
	require.NoError(t, err)
	require.NotNil(t, release, "the first command holds the download")

	began := make(chan string, 1)
	done := make(chan func(), 1)
	go func() {
		_, mine, err := d.Claim(t.Context(), "/ws", "key", func(what string) func() { began <- what; return func() {} })
		assert.NoError(t, err)
		done <- mine
	}()
	select {
	case what := <-began:
		assert.Contains(t, what, "the module download under way")
	case <-time.After(10 * time.Second):
		t.Fatal("the second command did not say it waits for the download within 10s")
	}
	d.Done("/ws", "key")
	release()
	select {
	case mine := <-done:
		assert.Nil(t, mine, "downloaded by the first: nothing left to claim")
	case <-time.After(10 * time.Second):
		t.Fatal("the second command's claim did not end within 10s of the download's")
	}

	_, mine, err := d.Claim(t.Context(), "/ws", "other", noWait)
	require.NoError(t, err)
	assert.NotNil(t, mine, "other module files: downloaded again")
	mine()

	ctx, cancel := context.WithCancel(t.Context())
	_, held, err := d.Claim(ctx, "/ws2", "key", noWait)
	require.NoError(t, err)
	cancel()
	_, none, err := d.Claim(ctx, "/ws2", "key", func(string) func() { return func() {} })
	assert.ErrorIs(t, err, context.Canceled, "a wait ends with its context")
	assert.Nil(t, none)
	held()
}

package remote_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/remote"
)

// A console that is down is waited out with a doubling back-off, capped at
// a minute, and said; the loop never spins.
func TestServeBacksOffWhileTheConsoleIsDown(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var waits []time.Duration
	var out bytes.Buffer
	s := &remote.Serve{
		Console: &remote.Client{URL: dead.URL, Token: "ghu_x"}, Repos: []string{"acme/app"}, PollWait: time.Second, Out: &out,
		Run: func(context.Context, *remote.Command) remote.Result {
			t.Error("nothing was claimed")
			return remote.Result{}
		},
		Wait: func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			if len(waits) == 8 {
				cancel()
			}
			return nil
		},
	}
	require.NoError(t, s.Loop(ctx))
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
		32 * time.Second, time.Minute, time.Minute}, waits)
	assert.Contains(t, out.String(), "serve: the console is unreachable (")
	assert.Contains(t, out.String(), "trying again in 1s")
}

package bot

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartServesAndShutdownStops: Start listens where the configuration
// says (a free port here), forgets deliveries past their retention, and
// Shutdown stops serving.
func TestStartServesAndShutdownStops(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.Listen = "127.0.0.1:0" }, nil)
	old := time.Now().Add(-deliveryRetention - time.Hour)
	f.store.(*SQLite).now = func() time.Time { return old }
	seen, err := f.store.SeenDelivery(t.Context(), "ancient")
	require.NoError(t, err)
	require.False(t, seen)
	f.store.(*SQLite).now = time.Now
	seen, err = f.store.SeenDelivery(t.Context(), "recent")
	require.NoError(t, err)
	require.False(t, seen)

	b, err := New(t.Context(), f.cfg, Deps{Logger: zerolog.Nop()})
	require.NoError(t, err)
	require.NoError(t, b.Start(t.Context()))
	resp, err := http.Get("http://" + b.Addr() + "/healthz")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "ok\n", string(body))

	seen, err = b.Store().SeenDelivery(t.Context(), "ancient")
	require.NoError(t, err)
	assert.False(t, seen, "an ancient delivery is forgotten")
	seen, err = b.Store().SeenDelivery(t.Context(), "recent")
	require.NoError(t, err)
	assert.True(t, seen, "a recent delivery is kept")

	require.NoError(t, b.Shutdown(t.Context()))
	_, err = http.Get("http://" + b.Addr() + "/healthz")
	assert.Error(t, err, "nothing listens after Shutdown")
	assert.NoError(t, b.Shutdown(t.Context()), "Shutdown twice is harmless")
}

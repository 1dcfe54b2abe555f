package console

import (
	"context"
	"time"
)

// StatusLost is the status of a live run nothing was heard from for
// Config.LiveExpiry: no batch of its events, no poll for what its page
// sent it (a live run polls at least every half minute). The process
// running it died, or lost the network, before it sent its report. A lost
// run heard from again is live again; its report replaces it as any.
const StatusLost = "lost"

// lostWhy is what a lost run's page says of it.
const lostWhy = "the process running it died or lost its network before it sent its report; " +
	"core session sync on its machine sends the report if the run ended there"

// sweepEvery is how often, at most, one console looks for lost runs: the
// look is a write, and the run page asks for events every few seconds.
const sweepEvery = 10 * time.Second

// sweepLost marks lost the live runs silent for longer than
// Config.LiveExpiry, before a run is shown. A failure is logged: the runs
// are shown as they are.
func (c *Console) sweepLost(ctx context.Context) {
	now := c.cfg.Now()
	c.sweepMu.Lock()
	if since := now.Sub(c.swept); !c.swept.IsZero() && since >= 0 && since < sweepEvery {
		c.sweepMu.Unlock()
		return
	}
	c.swept = now
	c.sweepMu.Unlock()
	n, err := c.cfg.Store.ExpireLive(ctx, now.Add(-c.cfg.LiveExpiry))
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Marking silent live runs lost failed")
		return
	}
	if n > 0 {
		c.cfg.Logger.Info().Int64(logKeyCount, n).Dur(logKeyAfter, c.cfg.LiveExpiry).Msg("Marked silent live runs lost")
	}
}

// heardFrom records word from live run sessionID (a lost run is live
// again). A failure is logged: the run's request goes on.
func (c *Console) heardFrom(ctx context.Context, sessionID string) {
	if err := c.cfg.Store.HeardFrom(ctx, sessionID, c.cfg.Now().UTC()); err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Recording word from a live run failed")
	}
}

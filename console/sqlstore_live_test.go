package console

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreRunEvents(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			ev := func(n int) []json.RawMessage {
				out := make([]json.RawMessage, n)
				for i := range out {
					out[i] = json.RawMessage(`{"kind":"turn"}`)
				}
				return out
			}
			next, err := s.AppendEvents(ctx, "s-1", 0, ev(3), t0)
			require.NoError(t, err)
			assert.Equal(t, int64(3), next)
			next, err = s.AppendEvents(ctx, "s-1", 1, ev(4), t0)
			require.NoError(t, err, "an overlap is skipped")
			assert.Equal(t, int64(5), next)
			next, err = s.AppendEvents(ctx, "s-1", 7, ev(1), t0)
			assert.ErrorIs(t, err, ErrEventGap)
			assert.Equal(t, int64(5), next, "a gap says where to send from")
			_, err = s.AppendEvents(ctx, "s-1", 5, ev(maxRunEvents), t0)
			assert.ErrorIs(t, err, ErrTooManyEvents)
			evs, err := s.Events(ctx, "s-1", 2, 0)
			require.NoError(t, err)
			require.Len(t, evs, 2)
			assert.Equal(t, int64(3), evs[0].Seq)
			evs, err = s.LastEvents(ctx, "s-1", 3)
			require.NoError(t, err)
			require.Len(t, evs, 3)
			assert.Equal(t, int64(2), evs[0].Seq, "the last three, in order")
			evs, err = s.LastEvents(ctx, "s-1", 10)
			require.NoError(t, err)
			assert.Len(t, evs, 5, "all there are")

			_, err = s.exec(ctx, `UPDATE console_run_events SET event = '{}'`)
			assert.ErrorContains(t, err, "append-only")
			_, err = s.exec(ctx, `DELETE FROM console_run_events`)
			assert.ErrorContains(t, err, "append-only")
		})
	}
}

// Several pollers (replicas answering the same run's long-polls) hand each
// control over once.
func TestStoreControlsTakenOnce(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			const controls = 6
			for range controls {
				require.NoError(t, s.AddControl(ctx, &RunControl{SessionID: "s-1", Kind: ControlMessage, Text: "x", From: "alice", CreatedAt: t0}))
			}
			taken := make(chan int64, 4*controls)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					cs, err := s.TakeControls(ctx, "s-1", t0)
					if assert.NoError(t, err) {
						for _, c := range cs {
							taken <- c.ID
						}
					}
				})
			}
			wg.Wait()
			close(taken)
			seen := map[int64]bool{}
			for id := range taken {
				assert.False(t, seen[id], "control %d taken twice", id)
				seen[id] = true
			}
			assert.Len(t, seen, controls)
			cs, err := s.Controls(ctx, "s-1")
			require.NoError(t, err)
			for _, c := range cs {
				assert.Equal(t, ControlDelivered, c.State)
			}
			_, err = s.AckControl(ctx, "s-2", cs[0].ID, "ok", false, t0)
			assert.ErrorIs(t, err, ErrNotFound, "another run's control")
		})
	}
}

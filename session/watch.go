package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// Watch hands each event of session id's log to fn, in order: the whole
// log of an ended run, and, while the run lives, each event as it is
// written, until the run ends (like tail -f) or ctx does.
func (s *Store) Watch(ctx context.Context, id string, fn func(live.Event) error) error {
	tick := time.NewTicker(live.WatchEvery)
	defer tick.Stop()
	path := filepath.Join(s.Dir(id), live.EventsFile)
	var f *os.File
	for {
		rec, err := s.Load(id)
		if err != nil {
			return err
		}
		if f, err = os.Open(path); err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watch session %s: %w", id, err)
		}
		switch {
		case s.follows(id, rec): // a run opening its log
		case rec.Status == state.Pending:
			return fmt.Errorf("session %s has not started yet: watch it once it has", id)
		default:
			return fmt.Errorf("session %s has no event log: it ran before core kept one", id)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	defer f.Close()
	return live.Follow(ctx, id, f, func() bool {
		rec, err := s.Load(id)
		return err == nil && s.follows(id, rec)
	}, fn)
}

// follows reports whether Watch waits for more of session id's events: the
// run is live, or it is pending and a process holds its lock, which is a
// run starting (it opens its event log before its record says starting,
// so a pending record beside an event log is not a run that ended). A
// pending run with no process never started.
func (s *Store) follows(id string, rec *Record) bool {
	return rec.Status.Live() || rec.Status == state.Pending && s.locked(id)
}

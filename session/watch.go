package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// watchEvery is how often Watch looks for more events while the run lives.
const watchEvery = 200 * time.Millisecond

// Watch hands each event of session id's log to fn, in order: the whole
// log of an ended run, and, while the run lives, each event as it is
// written, until the run ends (like tail -f) or ctx does.
func (s *Store) Watch(ctx context.Context, id string, fn func(live.Event) error) error {
	tick := time.NewTicker(watchEvery)
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
	r := bufio.NewReader(f)
	var partial []byte
	for {
		ended := false
		if rec, err := s.Load(id); err != nil || !s.follows(id, rec) {
			// Everything the run wrote is in the file before its record
			// says it ended: one more read takes it all.
			ended = true
		}
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 && line[len(line)-1] == '\n' {
				line = append(partial, line...)
				partial = nil
				var e live.Event
				if jerr := json.Unmarshal(bytes.TrimSpace(line), &e); jerr != nil {
					return fmt.Errorf("watch session %s: %s holds a damaged line: %w", id, live.EventsFile, jerr)
				}
				if ferr := fn(e); ferr != nil {
					return ferr
				}
				continue
			}
			partial = append(partial, line...) // a line still being written
			if err == nil || errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("watch session %s: %w", id, err)
		}
		if ended {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// follows reports whether Watch waits for more of session id's events: the
// run is live, or it is pending and a process holds its lock, which is a
// run starting (it opens its event log before its record says starting,
// so a pending record beside an event log is not a run that ended). A
// pending run with no process never started.
func (s *Store) follows(id string, rec *Record) bool {
	return rec.Status.Live() || rec.Status == state.Pending && s.locked(id)
}

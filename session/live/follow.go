package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// WatchEvery is how often a watcher looks for more events while the run
// lives.
const WatchEvery = 200 * time.Millisecond

// Follow hands each event of session id's log, read from f, to fn, in
// order, and reads on as more is written while follows reports that the run
// lives (like tail -f), until it does not or ctx ends. The log's owner
// (session's Store.Watch) opens f and says whether the run lives.
func Follow(ctx context.Context, id string, f io.Reader, follows func() bool, fn func(Event) error) error {
	tick := time.NewTicker(WatchEvery)
	defer tick.Stop()
	r := bufio.NewReader(f)
	var partial []byte
	for {
		ended := false
		if !follows() {
			// Everything the run wrote is in the file before its record
			// says it ended: one more read takes it all.
			ended = true
		}
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 && line[len(line)-1] == '\n' {
				line = append(partial, line...)
				partial = nil
				var e Event
				if jerr := json.Unmarshal(bytes.TrimSpace(line), &e); jerr != nil {
					return fmt.Errorf("watch session %s: %s holds a damaged line: %w", id, EventsFile, jerr)
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

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// session-wait STATE N: wait (testkit.Patience at most) until the newest
// session's event log has moved to STATE N times.
func cmdSessionWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: session-wait STATE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Patience)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	seen := 0
	for {
		if seen = stateEvents(ts, state.Status(args[0])); seen >= n {
			return
		}
		select {
		case <-ctx.Done():
			ts.Fatalf("session-wait: waited %s for the session to be %s %d times; it was %d times", testkit.Patience, args[0], n, seen)
		case <-tick.C:
		}
	}
}

// stateEvents counts the moves to status in the newest session's log.
func stateEvents(ts *testscript.TestScript, status state.Status) int {
	home := ts.Getenv("CORE_HOME")
	entries, err := os.ReadDir(filepath.Join(home, "sessions"))
	if err != nil || len(entries) == 0 {
		return 0
	}
	f, err := os.Open(filepath.Join(home, "sessions", entries[len(entries)-1].Name(), live.EventsFile))
	if err != nil {
		return 0
	}
	defer f.Close()
	count := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e live.Event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Kind == live.EventState && e.Status == status {
			count++
		}
	}
	return count
}

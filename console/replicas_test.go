package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// Two consoles (two bot replicas) on one database: each claim
// is taken once, whichever replica a poller reaches, and a result goes
// through either.
func TestReplicasShareClaims(t *testing.T) {
	t.Parallel()
	for name, open := range shared(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			one, two := open(t)
			replicasShareClaims(t, one, two)
		})
	}
}

// shared opens two stores on one database: one SQLite file, and (when
// there is one) one PostgreSQL schema.
func shared(t *testing.T) map[string]func(t *testing.T) (*SQL, *SQL) {
	out := map[string]func(t *testing.T) (*SQL, *SQL){"sqlite": func(t *testing.T) (*SQL, *SQL) {
		path := filepath.Join(t.TempDir(), "console.db")
		open := func() *SQL {
			s, err := Open(t.Context(), path)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			return s
		}
		return open(), open()
	}}
	if testkit.PostgresURL(t) != "" {
		out["postgres"] = func(t *testing.T) (*SQL, *SQL) {
			dsn := testkit.PostgresSchema(t, "t_")
			return postgresStore(t, dsn), postgresStore(t, dsn)
		}
	}
	return out
}

func replicasShareClaims(t *testing.T, one, two *SQL) {
	a := newHarness(t, one)
	b := a.replica(t, two)
	const commands = 8
	for i := range commands {
		status, body := a.call(t, http.MethodPost, "/api/session-commands", a.alice,
			map[string]any{"repo": "acme/app", "instruction": "task " + strconv.Itoa(i)})
		require.Equal(t, http.StatusCreated, status, string(body))
	}
	claimed := make(chan *Command, 4*commands)
	var wg sync.WaitGroup
	for i, h := range []*harness{a, b, a, b} {
		tok := []string{a.alice, a.alice2}[i%2]
		wg.Go(func() {
			for {
				status, body := h.call(t, http.MethodGet, "/api/session-commands", tok, nil)
				if status != http.StatusOK {
					assert.Equal(t, http.StatusNoContent, status, string(body))
					return
				}
				claimed <- command(t, body)
			}
		})
	}
	wg.Wait()
	close(claimed)
	seen := map[int64]bool{}
	for c := range claimed {
		assert.False(t, seen[c.ID], "command %d claimed twice", c.ID)
		seen[c.ID] = true
		other := b // the result goes to the other replica than one may think
		if c.ID%2 == 0 {
			other = a
		}
		status, body := other.call(t, http.MethodPost, "/api/session-commands/"+strconv.FormatInt(c.ID, 10)+"/result",
			a.alice, Result{Claim: c.Claim, Status: "succeeded"})
		assert.Equal(t, http.StatusOK, status, string(body))
	}
	assert.Len(t, seen, commands)
	log, err := a.store.AuditLog(t.Context(), 1000)
	require.NoError(t, err)
	claims := 0
	for _, e := range log {
		if e.Action == "claim" {
			claims++
		}
	}
	assert.Equal(t, commands, claims, "one claim audited per command, across both replicas")
}

// A long poll on one replica finds a command queued on the other: no
// in-process wake-up crosses replicas, the recheck does.
func TestReplicaLongPollSeesTheOthersEnqueue(t *testing.T) {
	t.Parallel()
	for name, open := range shared(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			one, two := open(t)
			longPollAcrossReplicas(t, one, two)
		})
	}
}

func longPollAcrossReplicas(t *testing.T, one, two *SQL) {
	a := newHarness(t, one)
	a.cfg.Recheck = 20 * time.Millisecond
	b := a.replica(t, two)
	got := make(chan int, 1)
	go func() {
		status, _ := b.call(t, http.MethodGet, "/api/session-commands?wait=50s", a.alice, nil)
		got <- status
	}()
	status, _ := a.call(t, http.MethodPost, "/api/session-commands", a.alice2, map[string]any{"repo": "acme/app", "instruction": "x"})
	require.Equal(t, http.StatusCreated, status)
	assert.Equal(t, http.StatusOK, <-got)
}

// A live run's long poll on one replica takes the message its starter
// sent through the other, and the other's page shows the run's answer.
func TestReplicaLiveRunControls(t *testing.T) {
	t.Parallel()
	for name, open := range shared(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			one, two := open(t)
			a := newHarness(t, one)
			a.cfg.Recheck = 20 * time.Millisecond
			b := a.replica(t, two)
			status, body := b.call(t, http.MethodPost, "/api/session-runs/s-live/events", a.alice, events(0, 2, "active"))
			require.Equal(t, http.StatusOK, status, string(body))
			got := make(chan []byte, 1)
			go func() {
				_, body := b.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=50s", a.alice, nil)
				got <- body
			}()
			v, _ := a.signIn(t, "alice")
			resp, page := v.post(t, "/runs/s-live/control", url.Values{"csrf": {v.csrf}, "action": {"message"}, "text": {"also the README"}})
			require.Equal(t, http.StatusCreated, resp.StatusCode, page)
			var out struct{ Controls []RunControl }
			require.NoError(t, json.Unmarshal(testkit.Receive(t, got, "the other replica's long poll to hand the message over"), &out))
			require.Len(t, out.Controls, 1)
			assert.Equal(t, "also the README", out.Controls[0].Text)
			status, body = b.call(t, http.MethodPost, fmt.Sprintf("/api/session-runs/s-live/controls/%d", out.Controls[0].ID), a.alice, map[string]any{"ack": "received"})
			require.Equal(t, http.StatusOK, status, string(body))
			status, body = a.call(t, http.MethodGet, "/api/session-runs/s-live/events", a.bob, nil)
			require.Equal(t, http.StatusOK, status, string(body))
			assert.Contains(t, string(body), `"note":"received"`)
		})
	}
}

package console

import (
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func TestStoreRuns(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			r := &Run{SessionID: "s1", Repo: "acme/app", Trigger: TriggerCLI, Actor: "alice", Owner: "user:1", Status: "succeeded",
				Turns: 3, Tokens: 900, Duration: time.Minute, StartedAt: t0, ReceivedAt: t0.Add(time.Minute),
				Report: json.RawMessage(`{"id":"s1"}`)}
			created, err := s.PutRun(ctx, r)
			require.NoError(t, err)
			assert.True(t, created)
			r2 := *r
			r2.Status, r2.Turns = "failed", 4
			created, err = s.PutRun(ctx, &r2)
			require.NoError(t, err)
			assert.False(t, created, "the same session id replaces")
			_, err = s.PutRun(ctx, &Run{SessionID: "s2", Repo: "acme/other", Trigger: TriggerBot, Actor: "bob", Owner: "user:2",
				Status: "running", StartedAt: t0.Add(time.Hour), ReceivedAt: t0.Add(time.Hour)})
			require.NoError(t, err)

			all, err := s.ListRuns(ctx, RunFilter{})
			require.NoError(t, err)
			require.Len(t, all, 2)
			assert.Equal(t, "s2", all[0].SessionID, "newest first")
			assert.Equal(t, "failed", all[1].Status)
			assert.Equal(t, 4, all[1].Turns)
			assert.Equal(t, time.Minute, all[1].Duration)
			assert.True(t, t0.Equal(all[1].StartedAt))
			assert.JSONEq(t, `{"id":"s1"}`, string(all[1].Report))

			for _, f := range []RunFilter{{Repo: "acme/app"}, {Status: "failed"}, {Actor: "alice"}} {
				got, err := s.ListRuns(ctx, f)
				require.NoError(t, err)
				require.Len(t, got, 1, "%+v", f)
				assert.Equal(t, "s1", got[0].SessionID)
			}
			_, err = s.GetRun(ctx, "nope")
			assert.ErrorIs(t, err, ErrNotFound)
		})
	}
}

func TestStoreClaims(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			c := &Command{Target: "alice", Repo: "acme/app", Instruction: "fix it", CreatedAt: t0}
			require.NoError(t, s.Enqueue(ctx, c))
			require.NoError(t, s.Enqueue(ctx, &Command{Target: "bob", Repo: "acme/app", Instruction: "not yours", CreatedAt: t0}))

			got, err := s.Claim(ctx, "alice", "claim-1", t0, time.Minute)
			require.NoError(t, err)
			require.NotNil(t, got)
			assert.Equal(t, c.ID, got.ID)
			assert.Equal(t, CommandClaimed, got.State)
			none, err := s.Claim(ctx, "alice", "claim-2", t0.Add(30*time.Second), time.Minute)
			require.NoError(t, err)
			assert.Nil(t, none, "claimed under a live lease")

			again, err := s.Claim(ctx, "alice", "claim-2", t0.Add(2*time.Minute), time.Minute)
			require.NoError(t, err)
			require.NotNil(t, again, "an expired lease returns it to the queue")
			assert.Equal(t, 2, again.Attempts)

			_, err = s.Finish(ctx, c.ID, "alice", &Result{Claim: "claim-1", Status: "succeeded"}, t0.Add(3*time.Minute))
			assert.ErrorIs(t, err, ErrNotClaimer, "the first claim lost it")
			_, err = s.Finish(ctx, c.ID, "bob", &Result{Claim: "claim-2", Status: "succeeded"}, t0.Add(3*time.Minute))
			assert.ErrorIs(t, err, ErrNotFound, "not bob's")
			done, err := s.Finish(ctx, c.ID, "alice", &Result{Claim: "claim-2", Status: "succeeded", Summary: "fixed"}, t0.Add(3*time.Minute))
			require.NoError(t, err)
			assert.Equal(t, CommandDone, done.State)
			assert.Equal(t, "fixed", done.Result.Summary)
			_, err = s.Finish(ctx, c.ID, "alice", &Result{Claim: "claim-2", Status: "failed"}, t0.Add(4*time.Minute))
			assert.ErrorIs(t, err, ErrFinished, "a result is accepted once")
		})
	}
}

func TestStoreRelease(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			c := &Command{Target: "alice", Repo: "acme/app", Instruction: "fix it", CreatedAt: t0}
			require.NoError(t, s.Enqueue(ctx, c))
			_, err := s.Claim(ctx, "alice", "k1", t0, time.Hour)
			require.NoError(t, err)
			back, err := s.Finish(ctx, c.ID, "alice", &Result{Claim: "k1", Status: CommandReleased}, t0)
			require.NoError(t, err)
			assert.Equal(t, CommandQueued, back.State)
			got, err := s.Claim(ctx, "alice", "k2", t0, time.Hour)
			require.NoError(t, err)
			require.NotNil(t, got, "a released command is claimable at once")
		})
	}
}

func TestStoreRacingClaims(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			const commands = 5
			for range commands {
				require.NoError(t, s.Enqueue(ctx, &Command{Target: "alice", Repo: "a/b", Instruction: "x", CreatedAt: t0}))
			}
			claimed := make(chan int64, 4*commands)
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Go(func() {
					for {
						c, err := s.Claim(ctx, "alice", string(rune('a'+i)), t0, time.Hour)
						if !assert.NoError(t, err) || c == nil {
							return
						}
						claimed <- c.ID
					}
				})
			}
			wg.Wait()
			close(claimed)
			seen := map[int64]bool{}
			for id := range claimed {
				assert.False(t, seen[id], "command %d claimed twice", id)
				seen[id] = true
			}
			assert.Len(t, seen, commands)
		})
	}
}

func TestStoreAuditIsAppendOnly(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			require.NoError(t, s.Audit(ctx, &AuditEntry{At: t0, Actor: "alice", Action: "enqueue", Target: "1", Reason: "queued"}))
			require.NoError(t, s.Audit(ctx, &AuditEntry{At: t0, Actor: "", Action: "refuse", Target: "/api/session-runs", Reason: "bad token"}))
			log, err := s.AuditLog(ctx, 0)
			require.NoError(t, err)
			require.Len(t, log, 2)
			assert.Equal(t, "refuse", log[0].Action, "newest first")
			_, err = s.exec(ctx, `UPDATE console_audit SET reason = 'forged'`)
			assert.ErrorContains(t, err, "append-only")
			_, err = s.exec(ctx, `DELETE FROM console_audit`)
			assert.ErrorContains(t, err, "append-only")
		})
	}
}

func TestStoreSessions(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			require.NoError(t, s.PutSession(ctx, &WebSession{IDHash: "h", Login: "alice", Owner: "user:1", CSRF: "c", Expires: t0.Add(time.Hour)}))
			ws, err := s.GetSession(ctx, "h", t0)
			require.NoError(t, err)
			assert.Equal(t, "alice", ws.Login)
			assert.Equal(t, "user:1", ws.Owner)
			_, err = s.GetSession(ctx, "h", t0.Add(2*time.Hour))
			assert.ErrorIs(t, err, ErrNotFound, "expired")
			require.NoError(t, s.DeleteSession(ctx, "h"))
			_, err = s.GetSession(ctx, "h", t0)
			assert.ErrorIs(t, err, ErrNotFound)
		})
	}
}

func TestStoreRenew(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			c := &Command{Target: "alice", Repo: "acme/app", Instruction: "long", CreatedAt: t0}
			require.NoError(t, s.Enqueue(ctx, c))
			_, err := s.Claim(ctx, "alice", "k1", t0, time.Minute)
			require.NoError(t, err)
			renewed, err := s.Renew(ctx, c.ID, "alice", "k1", t0.Add(time.Hour))
			require.NoError(t, err)
			assert.True(t, t0.Add(time.Hour).Equal(renewed.LeaseUntil))
			none, err := s.Claim(ctx, "alice", "k2", t0.Add(30*time.Minute), time.Minute)
			require.NoError(t, err)
			assert.Nil(t, none, "the renewed lease holds past the first")
			_, err = s.Renew(ctx, c.ID, "alice", "k2", t0.Add(time.Hour))
			assert.ErrorIs(t, err, ErrNotClaimer)
			_, err = s.Renew(ctx, c.ID, "bob", "k1", t0.Add(time.Hour))
			assert.ErrorIs(t, err, ErrNotFound)
			_, err = s.Finish(ctx, c.ID, "alice", &Result{Claim: "k1", Status: "succeeded"}, t0)
			require.NoError(t, err)
			_, err = s.Renew(ctx, c.ID, "alice", "k1", t0.Add(2*time.Hour))
			assert.ErrorIs(t, err, ErrFinished)
		})
	}
}

func TestStoreRunOwner(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			run := func(actor, owner, status string) *Run {
				return &Run{SessionID: "s1", Repo: "acme/app", Trigger: TriggerCLI, Actor: actor, Owner: owner,
					Status: status, StartedAt: t0, ReceivedAt: t0, Report: json.RawMessage(`{"id":"s1"}`)}
			}
			created, err := s.PutRun(ctx, run("alice", "user:1", "running"))
			require.NoError(t, err)
			assert.True(t, created)
			_, err = s.PutRun(ctx, run("bob", "user:2", "succeeded"))
			assert.ErrorIs(t, err, ErrNotOwner)
			_, err = s.PutRun(ctx, run("alice", "user:3", "succeeded"))
			assert.ErrorIs(t, err, ErrNotOwner, "the login alone is not the owner")
			got, err := s.GetRun(ctx, "s1")
			require.NoError(t, err)
			assert.Equal(t, "running", got.Status, "a refused put changes nothing")
			assert.Equal(t, "user:1", got.Owner)
			created, err = s.PutRun(ctx, run("alice", "user:1", "succeeded"))
			require.NoError(t, err)
			assert.False(t, created)
			_, err = s.PutRun(ctx, &Run{SessionID: "s2", Repo: "acme/app", Actor: "alice"})
			assert.Error(t, err, "a run without an owner is refused")
		})
	}
}

func TestStoreRacingFirstReports(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = s.PutRun(ctx, &Run{SessionID: "s1", Repo: "acme/app", Trigger: TriggerCLI,
						Actor: "u" + strconv.Itoa(i), Owner: "user:" + strconv.Itoa(i), Status: "running", StartedAt: t0, ReceivedAt: t0})
				}()
			}
			wg.Wait()
			got, err := s.GetRun(ctx, "s1")
			require.NoError(t, err)
			for i, err := range errs {
				if "user:"+strconv.Itoa(i) == got.Owner {
					assert.NoError(t, err, "the owner's put succeeded")
					continue
				}
				if !errors.Is(err, ErrNotOwner) {
					// SQLite may answer a writer that lost the race "busy"
					// before it looked: it changed nothing either.
					require.Error(t, err)
				}
			}
		})
	}
}

func TestStoreMigratesOwnerlessRuns(t *testing.T) {
	t.Parallel()
	dsns := map[string]func(t *testing.T) (driver, dsn string){
		"sqlite": func(t *testing.T) (string, string) { return "sqlite", filepath.Join(t.TempDir(), "console.db") },
	}
	if testkit.PostgresURL(t) != "" {
		dsns["postgres"] = func(t *testing.T) (string, string) { return "pgx", testkit.PostgresSchema(t, "t_") }
	}
	for name, newDSN := range dsns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			driver, dsn := newDSN(t)
			old, err := sql.Open(driver, dsn)
			require.NoError(t, err)
			// console_runs as the first release made it, with one run.
			for _, q := range []string{`CREATE TABLE console_runs (
				session_id TEXT PRIMARY KEY, repo TEXT NOT NULL, trigger_kind TEXT NOT NULL, actor TEXT NOT NULL,
				status TEXT NOT NULL, verdict TEXT NOT NULL, turns BIGINT NOT NULL, tokens BIGINT NOT NULL,
				duration_ns BIGINT NOT NULL, pr_url TEXT NOT NULL, started_at BIGINT NOT NULL,
				received_at BIGINT NOT NULL, report TEXT NOT NULL)`,
				`INSERT INTO console_runs VALUES ('s1', 'acme/app', 'cli', 'alice', 'running', '', 1, 2, 3, '', 4, 5, '{}')`,
				// console_sessions before it kept who signed in by account.
				`CREATE TABLE console_sessions (
				id_hash TEXT PRIMARY KEY, login TEXT NOT NULL, csrf TEXT NOT NULL, expires BIGINT NOT NULL)`,
				`INSERT INTO console_sessions VALUES ('h', 'alice', 'c', 9000000000000000000)`,
			} {
				_, err := old.ExecContext(ctx, q)
				require.NoError(t, err)
			}
			require.NoError(t, old.Close())

			s, err := Open(ctx, dsn)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			got, err := s.GetRun(ctx, "s1")
			require.NoError(t, err, "a run stored before owners reads as before")
			assert.Equal(t, "alice", got.Actor)
			assert.Empty(t, got.Owner)
			ws, err := s.GetSession(ctx, "h", t0)
			require.NoError(t, err, "a session stored before owners reads as before")
			assert.Equal(t, "alice", ws.Login)
			assert.Empty(t, ws.Owner)

			put := func(actor, owner string) error {
				_, err := s.PutRun(ctx, &Run{SessionID: "s1", Repo: "acme/app", Trigger: TriggerCLI, Actor: actor, Owner: owner,
					Status: "succeeded by " + actor, StartedAt: t0, ReceivedAt: t0})
				return err
			}
			assert.ErrorIs(t, put("bob", "user:2"), ErrNotOwner, "an ownerless run is not anyone's")
			require.NoError(t, put("alice", "user:1"), "its reporter's login claims it")
			assert.ErrorIs(t, put("alice", "user:9"), ErrNotOwner, "once claimed, it is the claimer's")
			got, err = s.GetRun(ctx, "s1")
			require.NoError(t, err)
			assert.Equal(t, "user:1", got.Owner)
			assert.Equal(t, "succeeded by alice", got.Status)

			again, err := Open(ctx, dsn)
			require.NoError(t, err, "opening a migrated store again migrates nothing twice")
			require.NoError(t, again.Close())
		})
	}
}

func TestStoreAnchors(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			a := func(login, chain string, seq int64, head string) *Anchor {
				return &Anchor{AnchorPoint: AnchorPoint{Chain: chain, Seq: seq, Head: head}, Login: login, Command: seq, At: t0}
			}
			require.NoError(t, s.PutAnchor(ctx, a("alice", "c1", 2, "h2")))
			require.NoError(t, s.PutAnchor(ctx, a("alice", "c1", 5, "h5")))
			require.NoError(t, s.PutAnchor(ctx, a("alice", "c1", 5, "h5")), "the same anchor again")
			assert.ErrorIs(t, s.PutAnchor(ctx, a("alice", "c1", 5, "forged")), ErrAnchorConflict)
			require.NoError(t, s.PutAnchor(ctx, a("alice", "c2", 1, "x")))
			require.NoError(t, s.PutAnchor(ctx, a("bob", "c1", 5, "bob's own")))

			got, err := s.Anchors(ctx, "alice", "c1", 0)
			require.NoError(t, err)
			require.Len(t, got, 2)
			assert.Equal(t, int64(5), got[0].Seq, "newest line first")
			assert.Equal(t, "h5", got[0].Head, "the first head is kept")
			assert.True(t, t0.Equal(got[0].At))
			all, err := s.Anchors(ctx, "alice", "", 0)
			require.NoError(t, err)
			assert.Len(t, all, 3)

			_, err = s.exec(ctx, `UPDATE console_anchors SET head = 'forged'`)
			assert.ErrorContains(t, err, "append-only")
			_, err = s.exec(ctx, `DELETE FROM console_anchors`)
			assert.ErrorContains(t, err, "append-only")
		})
	}
}

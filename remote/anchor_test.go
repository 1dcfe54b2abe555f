package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/remote"
)

// rewrite edits the trail's lines with edit (by 0-based index; nil drops
// the line) and recomputes every "prev" after the first edit, as someone
// covering their tracks would: the local check passes the result.
func rewrite(t *testing.T, path string, edit func(i int, e *remote.AuditEntry) bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []byte
	prev := ""
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var e remote.AuditEntry
		require.NoError(t, json.Unmarshal(line, &e))
		if !edit(i, &e) {
			continue
		}
		e.Prev = prev
		line, err = json.Marshal(e)
		require.NoError(t, err)
		out = append(append(out, line...), '\n')
		prev = remote.LineHash(line)
	}
	require.NoError(t, os.WriteFile(path, out, 0o600))
	_, err = remote.VerifyAudit(path)
	require.NoError(t, err, "the rewritten chain holds locally: that is the hole the anchors close")
}

// TestAnchorsCatchARewrittenTrail: serve sends its trail's head with each
// result; the console keeps it; a trail edited afterwards with every later
// hash recomputed passes the local check but not the comparison with the
// console's anchors.
func TestAnchorsCatchARewrittenTrail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(i int, e *remote.AuditEntry) bool
		wantErr string // "" when the trail still matches
	}{
		{name: "untouched", edit: func(int, *remote.AuditEntry) bool { return true }},
		{name: "a result's detail changed", edit: func(i int, e *remote.AuditEntry) bool {
			if e.Event == "result" && e.Command == 1 {
				e.Detail = "failed"
			}
			return true
		}, wantErr: "the trail was rewritten at or before line"},
		{name: "a claim dropped", edit: func(i int, e *remote.AuditEntry) bool { return !(e.Event == "claim" && e.Command == 2) },
			wantErr: "the trail was rewritten at or before line"},
		{name: "the first line changed, so the chain is another", edit: func(i int, e *remote.AuditEntry) bool {
			if i == 0 {
				e.Detail = "serving nothing"
			}
			return true
		}, wantErr: "keeps no anchor of its chain"},
		{name: "the end cut off", edit: func(i int, e *remote.AuditEntry) bool { return i < 5 },
			wantErr: "lines were dropped from its end"},
		{name: "a line after the last anchor changed", edit: func(i int, e *remote.AuditEntry) bool {
			if i == 7 {
				e.Detail = "changed"
			}
			return true
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, _ := newConsole(t)
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			for i, instruction := range []string{"one", "two"} {
				_, err := client.Enqueue(t.Context(), remote.Order{Repo: "acme/app", Instruction: instruction})
				require.NoError(t, err)
				s := &remote.Serve{
					Console: client, Repos: []string{"acme/app"}, PollWait: 5 * time.Second, Out: &bytes.Buffer{}, Once: true,
					Audit: &remote.Audit{Path: path},
					Run: func(context.Context, *remote.Command) remote.Result {
						return remote.Result{Status: remote.Succeeded, Summary: instruction}
					},
				}
				require.NoError(t, s.Loop(t.Context()), "instruction %d", i+1)
			}
			trail, err := remote.ReadTrail(path)
			require.NoError(t, err)
			anchors, err := client.Anchors(t.Context(), trail.Chain())
			require.NoError(t, err)
			require.Len(t, anchors, 2, "one anchor a result")
			assert.Equal(t, []int64{7, 3}, []int64{anchors[0].Seq, anchors[1].Seq}, "each result line anchored, newest first")

			rewrite(t, path, tt.edit)
			trail, err = remote.ReadTrail(path)
			require.NoError(t, err)
			anchors, err = client.Anchors(t.Context(), trail.Chain())
			require.NoError(t, err)
			msg, err := trail.Check(anchors)
			if tt.wantErr != "" {
				require.Error(t, err, msg)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, msg, "matches the console's anchors up to line 7")
		})
	}
}

func TestCheckWithoutAnchors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []remote.AuditEntry
		wantErr string
		wantMsg string
	}{
		{name: "no result yet", entries: []remote.AuditEntry{{Event: "start"}, {Event: "claim", Command: 1}},
			wantMsg: "keeps no anchor of it yet"},
		{name: "a result that never reached the console", entries: []remote.AuditEntry{{Event: "start"}, {Event: "result", Command: 1}, {Event: "result-undelivered", Command: 1}},
			wantMsg: "keeps no anchor of it yet"},
		{name: "a delivered result", entries: []remote.AuditEntry{{Event: "start"}, {Event: "result", Command: 1}},
			wantErr: "says 1 results reached the console, but the console keeps no anchor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := &remote.Audit{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
			for _, e := range tt.entries {
				require.NoError(t, a.Append(e))
			}
			trail, err := remote.ReadTrail(a.Path)
			require.NoError(t, err)
			head, err := a.Head()
			require.NoError(t, err)
			assert.Equal(t, trail.Chain(), head.Chain)
			assert.Equal(t, int64(len(tt.entries)), head.Seq)
			msg, err := trail.Check([]remote.Anchor{{AnchorPoint: remote.AnchorPoint{Chain: "another", Seq: 1, Head: "x"}}})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, msg, tt.wantMsg)
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadEvents: the cursor counts complete lines; a line still being
// written waits for the next call; the limit leaves the rest for later.
func TestReadEvents(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"kind":"state","status":"starting"}
{"kind":"turn","turn":1}
{"kind":"state","status":"act`), 0o600))
	events, next, more, err := readEvents(path, 0, 10)
	require.NoError(t, err)
	assert.Len(t, events, 2)
	assert.Equal(t, 2, next, "the torn last line is not counted")
	assert.False(t, more)

	events, next, more, err = readEvents(path, 0, 1)
	require.NoError(t, err)
	assert.Len(t, events, 1)
	assert.Equal(t, 1, next)
	assert.True(t, more, "the limit leaves a line for the next call")

	events, next, _, err = readEvents(path, 2, 10)
	require.NoError(t, err)
	assert.Empty(t, events)
	assert.Equal(t, 2, next, "nothing new: the cursor stays")

	events, next, _, err = readEvents(filepath.Join(t.TempDir(), "none"), 3, 10)
	require.NoError(t, err)
	assert.Empty(t, events)
	assert.Equal(t, 3, next, "no log yet is no event")

	require.NoError(t, os.WriteFile(path, []byte("{\"kind\":\"state\"}\nnot json\n"), 0o600))
	_, _, _, err = readEvents(path, 0, 10)
	assert.ErrorContains(t, err, "line 2 is damaged")
}

// FuzzReadEvents: whatever the log holds, readEvents never panics, never
// returns more than the limit, and its cursor never goes back.
func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("{\"kind\":\"state\"}\n{\"kind\":\"turn\"}\n{\"ki"), 1, 5)
	f.Add([]byte("\n\n\n"), 0, 1)
	f.Add([]byte("{}\nnull\n[]\n"), 0, 3)
	f.Fuzz(func(t *testing.T, log []byte, after, limit int) {
		if after < 0 || limit < 1 || limit > 1000 {
			return
		}
		path := filepath.Join(t.TempDir(), "events.jsonl")
		require.NoError(t, os.WriteFile(path, log, 0o600))
		events, next, _, err := readEvents(path, after, limit)
		if err != nil {
			return
		}
		if len(events) > limit || next-after < len(events) {
			t.Fatalf("%d events past the limit %d", len(events), limit)
		}
		if next < after {
			t.Fatalf("the cursor went back from %d to %d", after, next)
		}
	})
}

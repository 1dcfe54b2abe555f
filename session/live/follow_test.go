package live

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFollowOfAnEndedLog: the log of a run that has ended is read whole,
// a last line still unfinished left out, and a damaged line is an error
// that names the file.
func TestFollowOfAnEndedLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		log     string
		want    []string
		wantErr string
	}{
		{name: "whole lines", log: `{"kind":"turn","turn":1,"tool":"run_shell"}` + "\n" + `{"kind":"output","text":"ok\n"}` + "\n", want: []string{"turn:1", "output:0"}},
		{name: "an unfinished last line", log: `{"kind":"turn","turn":2}` + "\n" + `{"kind":"out`, want: []string{"turn:2"}},
		{name: "a damaged line", log: `{"kind":"turn","turn":3}` + "\n" + "not json\n", want: []string{"turn:3"}, wantErr: "watch session s1: events.jsonl holds a damaged line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			err := Follow(t.Context(), "s1", strings.NewReader(tt.log), func() bool { return false }, func(e Event) error {
				got = append(got, fmt.Sprintf("%s:%d", e.Kind, e.Turn))
				return nil
			})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestFollowJoinsALineWrittenInTwo: while the run lives, a line the run is
// still writing waits for its end, and the read that follows the run's end
// takes the rest.
func TestFollowJoinsALineWrittenInTwo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"kind":"turn","turn":1}`+"\n"+`{"kind":"turn",`), 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	calls := 0
	follows := func() bool {
		calls++
		if calls == 1 {
			return true
		}
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		_, err = w.WriteString(`"turn":2}` + "\n")
		require.NoError(t, err)
		require.NoError(t, w.Close())
		return false
	}
	var got []string
	require.NoError(t, Follow(t.Context(), "s1", f, follows, func(e Event) error {
		got = append(got, fmt.Sprintf("%s:%d", e.Kind, e.Turn))
		return nil
	}))
	assert.Equal(t, []string{"turn:1", "turn:2"}, got)
	assert.Equal(t, 2, calls, "one look while the run lived, one after it ended")
}

package live

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/scrub"
)

// TestOutputEvents: a command's output becomes events of whole lines, at
// most outputChunk bytes each, scrubbed; what is left is flushed.
func TestOutputEvents(t *testing.T) {
	t.Parallel()
	secret := "ghs_secretsecretsecret1234"
	long := strings.Repeat("x", outputChunk+10)
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{name: "lines together", writes: []string{"a\nb\n"}, want: []string{"a\nb\n"}},
		{name: "a line in pieces", writes: []string{"hel", "lo\nwor", "ld"}, want: []string{"hello\n", "world"}},
		{name: "a long line is cut", writes: []string{long + "\n"}, want: []string{long[:outputChunk], long[outputChunk:] + "\n"}},
		{name: "a secret split across writes is scrubbed", writes: []string{"token " + secret[:8], secret[8:] + " end\n"}, want: []string{"token " + scrub.Mark + " end\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), EventsFile)
			log, err := OpenEvents(path, scrub.New(secret), time.Now)
			require.NoError(t, err)
			out := log.Output(3)
			for _, w := range tt.writes {
				_, err := out.Write([]byte(w))
				require.NoError(t, err)
			}
			out.Flush()
			log.Close()
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			var got []string
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var e Event
				require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
				assert.Equal(t, EventOutput, e.Kind)
				assert.Equal(t, 3, e.Turn)
				got = append(got, e.Text)
			}
			assert.Equal(t, tt.want, got)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		})
	}
}

package remote_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/remote"
)

func TestAuditChain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tamper func(lines [][]byte) [][]byte
		bad    string // the error names this; "" when the chain holds
	}{
		{name: "untouched", tamper: func(l [][]byte) [][]byte { return l }},
		{name: "a line edited", tamper: func(l [][]byte) [][]byte {
			l[1] = bytes.Replace(l[1], []byte(`"claim"`), []byte(`"other"`), 1)
			return l
		}, bad: "line 3 breaks the chain"},
		{name: "a line dropped", tamper: func(l [][]byte) [][]byte { return append(l[:1:1], l[2:]...) }, bad: "line 2 breaks the chain"},
		{name: "a line that is not JSON", tamper: func(l [][]byte) [][]byte {
			l[2] = []byte("garbage")
			return l
		}, bad: "line 3 is not an audit entry"},
		{name: "the first line's prev forged", tamper: func(l [][]byte) [][]byte {
			l[0] = bytes.Replace(l[0], []byte(`"prev":""`), []byte(`"prev":"ab"`), 1)
			return l
		}, bad: "line 1 breaks the chain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "audit", "serve-audit.jsonl")
			a := &remote.Audit{Path: path}
			for _, e := range []remote.AuditEntry{{Event: "start"}, {Event: "claim", Command: 1}, {Event: "result", Command: 1, Detail: "succeeded"}, {Event: "stop"}} {
				require.NoError(t, a.Append(e))
			}
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
			require.Len(t, lines, 4)
			require.NoError(t, os.WriteFile(path, append(bytes.Join(tt.tamper(lines), []byte("\n")), '\n'), 0o600))
			n, err := remote.VerifyAudit(path)
			if tt.bad == "" {
				require.NoError(t, err)
				assert.Equal(t, 4, n)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.bad)
			assert.True(t, strings.HasPrefix(err.Error(), path), err.Error())
		})
	}
}

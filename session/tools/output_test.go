package tools

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestCapOutput(t *testing.T) {
	t.Parallel()
	var lines strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&lines, "line %04d\n", i)
	}
	tests := []struct {
		name      string
		in        string
		limit     int
		wantSame  bool
		wantHead  string
		wantTail  string
		wholeLine bool // the kept parts end and start on line boundaries
	}{
		{name: "under the limit", in: "short", limit: 100, wantSame: true},
		{name: "at the limit", in: strings.Repeat("a", 100), limit: 100, wantSame: true},
		{name: "lines", in: lines.String(), limit: 2000, wantHead: "line 0000\n", wantTail: "line 1999\n", wholeLine: true},
		{name: "one long line", in: strings.Repeat("ab", 5000), limit: 1000, wantHead: "abab", wantTail: "abab"},
		{name: "multibyte runes", in: strings.Repeat("é€😀", 3000), limit: 999, wantHead: "é€😀", wantTail: "é€😀"},
		{name: "tiny limit", in: strings.Repeat("z", 5000), limit: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := capOutput(tt.in, tt.limit)
			if tt.wantSame {
				assert.Equal(t, tt.in, got)
				return
			}
			assert.True(t, utf8.ValidString(got), "the cut keeps UTF-8 valid")
			assert.Contains(t, got, fmt.Sprintf("the output was %d bytes, over the %d-byte limit", len(tt.in), tt.limit))
			if tt.limit >= 200 {
				assert.LessOrEqual(t, len(got), tt.limit)
				assert.Greater(t, len(got), tt.limit/2, "most of the room is used")
			}
			assert.True(t, strings.HasPrefix(got, tt.wantHead))
			assert.True(t, strings.HasSuffix(got, tt.wantTail))
			head, tail, ok := strings.Cut(got, "\n[... ")
			assert.True(t, ok)
			_, tail, _ = strings.Cut(tail, "...]\n")
			assert.Equal(t, len(tt.in)-len(head)-len(tail), cutBytes(t, got), "the stated cut is what was left out")
			if tt.wholeLine {
				assert.True(t, strings.HasSuffix(head, "\n") || head == "")
				assert.True(t, strings.HasPrefix(tail, "line "))
			}
		})
	}
}

// cutBytes reads the number of bytes a capped output says it cut.
func cutBytes(t *testing.T, s string) int {
	t.Helper()
	var n int
	_, after, _ := strings.Cut(s, "[... ")
	_, err := fmt.Sscanf(after, "%d bytes cut", &n)
	assert.NoError(t, err)
	return n
}

func TestIsBinary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		want bool
	}{
		{name: "empty", data: nil},
		{name: "text", data: []byte("package main\n")},
		{name: "NUL early", data: []byte("ab\x00cd"), want: true},
		{name: "NUL past 8 KiB", data: append([]byte(strings.Repeat("a", 9000)), 0)},
		{name: "NUL at the last sniffed byte", data: append([]byte(strings.Repeat("a", binarySniff-1)), 0), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, isBinary(tt.data))
		})
	}
}

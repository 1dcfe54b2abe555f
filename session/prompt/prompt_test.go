package prompt

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, line, rest string
		ok                   bool
	}{
		{name: "a line", in: "y\nnext", line: "y", rest: "next", ok: true},
		{name: "an empty line", in: "\nnext", line: "", rest: "next", ok: true},
		{name: "the last line, unended", in: "/exit", line: "/exit", ok: true},
		{name: "the end of input", in: "", ok: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := strings.NewReader(tc.in)
			line, ok := ReadLine(r)
			assert.Equal(t, tc.line, line)
			assert.Equal(t, tc.ok, ok)
			rest := make([]byte, 64)
			n, _ := r.Read(rest)
			assert.Equal(t, tc.rest, string(rest[:n]), "read past its line")
		})
	}
}

func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"", "\n", "y\n", "a\nb", "\x00\r\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		line, ok := ReadLine(strings.NewReader(in))
		want, _, _ := strings.Cut(in, "\n")
		if line != want {
			t.Fatalf("ReadLine(%q) = %q, want %q", in, line, want)
		}
		if ok != (in != "") {
			t.Fatalf("ReadLine(%q) reported %v", in, ok)
		}
	})
}

// TestLinesStopEndsAReadUnderWay: Stop ends the reader at once on a pipe
// nobody writes to, closes the lines, and leaves no deadline behind.
func TestLinesStopEndsAReadUnderWay(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	_, err = w.WriteString("first\n")
	require.NoError(t, err)
	l := New(r)
	assert.Equal(t, "first", <-l.C())
	l.Stop()
	_, open := <-l.C()
	assert.False(t, open, "the lines go on after Stop")
	_, err = w.WriteString("after\n")
	require.NoError(t, err)
	require.NoError(t, r.SetReadDeadline(time.Now().Add(time.Minute)))
	line, ok := ReadLine(r)
	assert.True(t, ok)
	assert.Equal(t, "after", line)
}

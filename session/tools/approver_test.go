package tools

import (
	"context"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// countingReader counts the reads made of it.
type countingReader struct {
	r     io.Reader
	reads atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.r.Read(p)
}

// failingReader fails every read.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestTerminalApprover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       io.Reader
		terminal bool
		want     bool
		noRead   bool
	}{
		{name: "y", in: strings.NewReader("y\n"), terminal: true, want: true},
		{name: "yes without newline", in: strings.NewReader("yes"), terminal: true, want: true},
		{name: "YES padded", in: strings.NewReader("  YES \r\n"), terminal: true, want: true},
		{name: "n", in: strings.NewReader("n\n"), terminal: true},
		{name: "empty line", in: strings.NewReader("\n"), terminal: true},
		{name: "EOF", in: strings.NewReader(""), terminal: true},
		{name: "maybe", in: strings.NewReader("maybe\n"), terminal: true},
		{name: "yes please", in: strings.NewReader("yes please\n"), terminal: true},
		{name: "read error", in: failingReader{}, terminal: true},
		{name: "overlong line", in: strings.NewReader(strings.Repeat("y", 1000) + "\n"), terminal: true},
		{name: "no terminal", in: strings.NewReader("y\n"), terminal: false, noRead: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := &countingReader{r: tt.in}
			var out strings.Builder
			a := &TerminalApprover{In: in, Out: &out, Terminal: tt.terminal}
			got, err := a.Approve(t.Context(), "run_shell: make lint")
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Contains(t, out.String(), "run_shell: make lint\n")
			if tt.noRead {
				assert.Zero(t, in.reads.Load(), "without a terminal nothing is read")
				assert.NotContains(t, out.String(), "approve?")
				return
			}
			assert.Contains(t, out.String(), "approve? [y/N] ")
		})
	}
}

// TestTerminalApproverShowsEscapes: the action the model proposes is shown
// with its escape sequences escaped, not obeyed by the person's terminal
// (on the old code they reached it raw).
func TestTerminalApproverShowsEscapes(t *testing.T) {
	t.Parallel()
	for _, terminal := range []bool{true, false} {
		var out strings.Builder
		a := &TerminalApprover{In: strings.NewReader("n\n"), Out: &out, Terminal: terminal}
		_, err := a.Approve(t.Context(), "run_shell: ls\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;ok\x07\rrm -rf /")
		require.NoError(t, err)
		assert.NotContains(t, out.String(), "\x1b")
		assert.NotContains(t, out.String(), "\x07")
		assert.NotContains(t, out.String(), "\r")
		assert.Contains(t, out.String(), `run_shell: ls\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;ok\x07\x0drm -rf /`)
	}
}

func TestTerminalApproverReadsOneLineAtATime(t *testing.T) {
	t.Parallel()
	in := "y\nn\n" + strings.Repeat("x", 300) + "y\nyes\n"
	a := &TerminalApprover{In: strings.NewReader(in), Out: io.Discard, Terminal: true}
	var got []bool
	for range 5 {
		ok, err := a.Approve(t.Context(), "x")
		require.NoError(t, err)
		got = append(got, ok)
	}
	assert.Equal(t, []bool{true, false, false, true, false}, got,
		"each answer is its own line, an overlong one declines whole, and the last meets EOF")
}

func TestTerminalApproverCancel(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	a := &TerminalApprover{In: pr, Out: io.Discard, Terminal: true}
	// Nobody ever answers: only the deadline ends the question.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	type answer struct {
		ok  bool
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		ok, err := a.Approve(ctx, "run_shell: rm -r build")
		answered <- answer{ok, err}
	}()
	got := testkit.Receive(t, answered, "Approve to return after its deadline, with no answer typed")
	assert.False(t, got.ok)
	require.ErrorIs(t, got.err, context.DeadlineExceeded)

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	ok, err := a.Approve(ctx, "x")
	assert.False(t, ok)
	require.ErrorIs(t, err, context.Canceled)
}

func TestDenyApprover(t *testing.T) {
	t.Parallel()
	ok, err := DenyApprover{}.Approve(t.Context(), "run_shell: ls")
	require.NoError(t, err)
	assert.False(t, ok)
}

// TestTerminalApproverOneReadAtATime: questions that end at their
// deadline leave one read of In behind, not one each, and the next
// question takes it over: the answer typed after it was asked answers it
// whole (two reads at once would split the line between them, or the one
// nobody waits on would take it); a line that came in while no question
// was asked answers nothing.
func TestTerminalApproverOneReadAtATime(t *testing.T) {
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	prompts := make(chan struct{}, 64)
	a := &TerminalApprover{In: pr, Out: promptWriter(prompts), Terminal: true}
	before := runtime.NumGoroutine()
	for range 20 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
		ok, err := a.Approve(ctx, "run_shell: rm -r build")
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.False(t, ok)
	}
	require.LessOrEqual(t, runtime.NumGoroutine()-before, 1, "reads of In left by 20 questions that ended at their deadline")

	type answer struct {
		ok  bool
		err error
	}
	// ask asks, and returns once the question is on the terminal: what
	// is typed after comes after it was asked.
	ask := func() chan answer {
		for len(prompts) > 0 {
			<-prompts
		}
		answered := make(chan answer, 1)
		go func() {
			ok, err := a.Approve(t.Context(), "run_shell: make")
			answered <- answer{ok, err}
		}()
		testkit.Receive(t, prompts, "the question on the terminal")
		return answered
	}
	answered := ask()
	_, err := io.WriteString(pw, "yes\n")
	require.NoError(t, err)
	got := testkit.Receive(t, answered, "Approve to take the answer typed after it asked")
	require.NoError(t, got.err)
	assert.True(t, got.ok, "the whole line answers it")

	// A line typed while no question is asked (the last one ended at its
	// deadline, its read still pending) answers nothing.
	ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	_, err = a.Approve(ctx, "run_shell: rm -r dist")
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = io.WriteString(pw, "y\n")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.reading) == 1
	}, testkit.Patience, time.Millisecond, "the pending read to bring the line in")
	answered = ask()
	_, err = io.WriteString(pw, "n\n")
	require.NoError(t, err)
	got = testkit.Receive(t, answered, "Approve to take the line typed after it asked")
	require.NoError(t, got.err)
	assert.False(t, got.ok, "the y typed while no question was asked does not approve the next")
}

// promptWriter is a terminal that tells, on prompts, each question asked.
type promptWriter chan struct{}

func (w promptWriter) Write(b []byte) (int, error) {
	if strings.Contains(string(b), "approve? [y/N]") {
		select {
		case w <- struct{}{}:
		default:
		}
	}
	return len(b), nil
}

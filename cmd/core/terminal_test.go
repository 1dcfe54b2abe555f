package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/state"
)

// TestSummaryEscapesAHostileURL: a pull request URL and a branch as GitHub
// or a repository could send them, with an escape sequence (a hyperlink,
// the window's title), reach the person's terminal escaped; --json gives
// the report with JSON's own escapes. On the old code the summary printed
// them raw.
func TestSummaryEscapesAHostileURL(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	e := newEnv(strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	url := "https://github.test/o/r/pull/1\x1b]8;;http://evil.test/\x07"
	rep := &session.Report{
		ID:            "s1",
		ReportOutcome: session.ReportOutcome{Status: state.Partial, Summary: "fixed\x1b[2J\u009b2J it"},
		ReportLanding: session.ReportLanding{PRURL: url, Branch: "core-session/s1\x1b]0;t\x07"},
	}
	err := e.finish(rep, nil, true)
	require.Error(t, err, "partial is exit status 2")
	assert.NotContains(t, stderr.String(), "\x1b")
	assert.NotContains(t, stderr.String(), "\x07")
	assert.NotContains(t, stderr.String(), "\u009b")
	assert.Contains(t, stderr.String(), `pull request: https://github.test/o/r/pull/1\x1b]8;;http://evil.test/\x07`)
	assert.Contains(t, stderr.String(), `summary: fixed\x1b[2J\u009b2J it`)
	assert.Contains(t, stdout.String(), `"pr_url": "https://github.test/o/r/pull/1\u001b]8;;http://evil.test/\u0007"`, "--json as JSON writes it")
}

// openTerminal opens a pseudo-terminal: what the run reads as its stdin
// (tty) and the person's side of it (person).
func openTerminal(t *testing.T) (tty, person *os.File) {
	t.Helper()
	person, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	closePerson := true
	defer func() {
		if closePerson {
			person.Close()
		}
	}()
	fd := int(person.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlock the pseudo-terminal")
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	// Opened as a process's stdin is, blocking (os.NewFile, as os.Stdin):
	// what isatty's Fd makes of any file it looks at.
	name := fmt.Sprintf("/dev/pts/%d", n)
	ttyFD, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	tty = os.NewFile(uintptr(ttyFD), name)
	// The person's side first: a read of the terminal still under way
	// (the run's reader, which a terminal cannot stop) then ends, and
	// closing the terminal no longer waits for it.
	closePerson = false
	t.Cleanup(func() {
		person.Close()
		tty.Close()
	})
	return tty, person
}

// TestAtATerminal: a run a person started at a terminal. By default the
// landed run prints where the work landed, then asks for the next
// instruction; /exit completes it. With --idle-timeout 0 it completes at
// done, no prompt, as the flag's help says (on the old code it asked,
// and waited for the terminal).
func TestAtATerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		flags  []string
		typed  string
		prompt bool
	}{
		{name: "the default asks", typed: "/exit\n", prompt: true},
		{name: "--idle-timeout 0 completes at done", flags: []string{"--idle-timeout", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
			srv := llm.NewModelServer(t,
				llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
				llm.ContentReply("tool: done\nsummary: wrote a"),
			)
			tty, person := openTerminal(t)
			_, err := person.WriteString(tc.typed)
			require.NoError(t, err)
			environ := map[string]string{"CORE_HOME": t.TempDir(), "CORE_SESSION_INFERENCE_URL": srv.URL, "CORE_SESSION_SANDBOX": "off",
				"PATH": os.Getenv("PATH"), "HOME": t.TempDir()}
			ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
			defer cancel()
			var out, errOut writerBuffer
			args := append([]string{"session", "start", "--repo", repo, "--prompt", "write a"}, tc.flags...)
			err = run(ctx, args, tty, &out, &errOut, func(k string) string { return environ[k] })
			require.NoError(t, err, "%s", errOut.String())
			assert.Contains(t, errOut.String(), ": completed\n")
			if !tc.prompt {
				assert.NotContains(t, out.String(), "next instruction")
				return
			}
			assert.Regexp(t, `^branch: core-session/\S+ \(commit [0-9a-f]+\)\n(?s:.*)UNVERIFIED.*\nnext instruction \(/exit to stop\)> $`, out.String())
		})
	}
}

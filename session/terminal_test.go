package session

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
)

// TestTerminalSeesNoEscapes: a command in the run's box prints escape
// sequences (the clipboard, OSC 52; the window's title; clear the screen;
// a C1 CSI), and the model's summary carries a hyperlink and a title. None
// of it reaches the person's terminal raw: progress, output and the
// approval prompt show every sequence escaped. On the old code the
// command's output reached the progress writer as it was.
func TestTerminalSeesNoEscapes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply(`tool: run_shell
command: printf '\033]52;c;cm0gLXJmIH4=\007\033]0;pwned\007\033[2J\233H\n'`),
		llm.ContentReply("tool: done\nsummary: \"fixed \\u001b]8;;http://evil.test/\\u0007it\\u001b]0;title\\u0007\""),
	)
	opts := testOptions(t, srv, repo)
	opts.Services.Sandbox = boxSandbox(t, home)
	opts.Landing.DryRun = true
	var progress, output, asked strings.Builder
	opts.Live.Progress, opts.Services.Output = &progress, &output
	opts.Services.Approver = &tools.TerminalApprover{In: strings.NewReader("y\n"), Out: &asked, Terminal: true}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	require.Contains(t, progress.String(), `\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J`, "the command's output is shown, escaped")
	for name, text := range map[string]string{"progress": progress.String(), "output": output.String(), "the approval prompt": asked.String()} {
		for _, raw := range []string{"\x1b", "\x07", "\u009b", "\x9b"} {
			assert.NotContains(t, text, raw, "%s holds %q raw", name, raw)
		}
	}
}

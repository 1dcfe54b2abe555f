package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

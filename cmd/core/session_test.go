package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/setup"
)

// TestEverySettingIsAFlag: every setting setup says the CLI takes is a flag
// of session start, named like the setting; resume takes them all but the
// session's own (model, verify).
func TestEverySettingIsAFlag(t *testing.T) {
	t.Parallel()
	start := newSessionStartCmd(&env{getenv: func(string) string { return "" }})
	resume := newSessionResumeCmd(&env{getenv: func(string) string { return "" }})
	for _, s := range setup.Settings() {
		if !s.Flag {
			assert.Nil(t, start.Flags().Lookup(s.Name), "%s takes no flag", s.Name)
			continue
		}
		f := start.Flags().Lookup(s.Name)
		require.NotNil(t, f, "session start lacks %s", s.FlagName())
		assert.Contains(t, f.Usage, s.Env(), "the help names the variable")
		if s.Name == setup.Model || s.Name == setup.Verify {
			assert.Nil(t, resume.Flags().Lookup(s.Name), "resume takes %s from the record", s.Name)
		} else {
			assert.NotNil(t, resume.Flags().Lookup(s.Name), "session resume lacks %s", s.FlagName())
		}
	}
}

// TestFlagErrorsNameTheFlag: a bad value is refused before anything runs,
// worded as the flag.
func TestFlagErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	environ := map[string]string{"CORE_HOME": t.TempDir(), "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_INFERENCE_URL": "http://127.0.0.1:9"}
	_, _, err := runCore(t, "", environ, "session", "start", "--repo", ".", "--prompt", "x", "--max-turns", "lots")
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), `--max-turns: must be a positive number, got "lots"`), err.Error())
	environ["CORE_SESSION_TIMEOUT"] = "soon"
	_, _, err = runCore(t, "", environ, "session", "start", "--repo", ".", "--prompt", "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `CORE_SESSION_TIMEOUT must be a duration such as 45m or 2h, got "soon"`, "a bad variable is named as the variable")
}

// TestCancelledWhileSettingUp: an interrupt before the session starts
// (the sandbox's probe, the model's check) exits 130 saying "cancelled",
// not 1 with whatever the interruption broke.
func TestCancelledWhileSettingUp(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out, errOut writerBuffer
	environ := map[string]string{"CORE_HOME": t.TempDir(), "CORE_SESSION_INFERENCE_URL": srv.URL, "PATH": os.Getenv("PATH")}
	err := run(ctx, []string{"session", "start", "--repo", t.TempDir(), "--prompt", "x", "--verify", "test"}, nil, &out, &errOut,
		func(k string) string { return environ[k] })
	var code exitCode
	require.ErrorAs(t, err, &code)
	assert.Equal(t, exitCode(130), code)
	assert.Equal(t, "core: cancelled\n", errOut.String())
}

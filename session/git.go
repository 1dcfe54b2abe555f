package session

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/scrub"
)

// gitRunner runs git with an environment core chose: nothing of core's own
// environment (no GIT_DIR, no token) leaks into it, and hooks never run in a
// workspace.
type gitRunner struct {
	env []string // PATH, HOME, LANG and the like
	// scrub cleans what git is given on stdin (a commit message) and the
	// words of its failures; nil scrubs nothing.
	scrub *scrub.Scrubber
}

// landGit is g as session/land runs git. A call given variables runs
// g.with(them), which, as ever, scrubs nothing; one given none is g's own.
func (g gitRunner) landGit() land.Git {
	return func(ctx context.Context, env []string, dir, stdin string, args ...string) (string, error) {
		if len(env) > 0 {
			return g.with(env...).raw(ctx, dir, stdin, args...)
		}
		return g.raw(ctx, dir, stdin, args...)
	}
}

// with returns a runner that also sets the variables given (NAME=value).
func (g gitRunner) with(env ...string) gitRunner {
	return gitRunner{env: append(append([]string{}, g.env...), env...)}
}

// run runs git in dir and returns its trimmed standard output. A failure
// carries git's own words.
func (g gitRunner) run(ctx context.Context, dir string, args ...string) (string, error) {
	return g.runInput(ctx, dir, "", args...)
}

// runInput is run with stdin.
func (g gitRunner) runInput(ctx context.Context, dir, stdin string, args ...string) (string, error) {
	out, err := g.raw(ctx, dir, stdin, args...)
	return strings.TrimSpace(out), err
}

// raw is runInput with git's standard output as it came: patches keep
// their trailing whitespace.
func (g gitRunner) raw(ctx context.Context, dir, stdin string, args ...string) (string, error) {
	full := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, g.env...), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	cmd.Stdin = strings.NewReader(g.scrub.String(stdin))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], g.scrub.String(msg))
	}
	return stdout.String(), nil
}

// GitEnv picks, from an environment, what git needs to run (PATH, HOME,
// LANG, TMPDIR) and nothing else: no token, no GIT_DIR, no GIT_CONFIG_*.
func GitEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Git is git as a session runs it, with env alone (GitEnv), its hooks
// off: for a contract.Checker outside a session (core verify).
func Git(env []string) func(ctx context.Context, dir string, args ...string) (string, error) {
	return gitRunner{env: env}.run
}

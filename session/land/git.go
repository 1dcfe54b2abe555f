package land

import (
	"context"
	"strings"
)

// Git runs git in dir, the variables env added to the session's own
// environment for git, stdin its input, and returns its standard output as
// it came. A failure carries git's own words.
type Git func(ctx context.Context, env []string, dir, stdin string, args ...string) (string, error)

// GitIdentity returns the options that make core the author of its commits.
func GitIdentity() []string {
	return []string{"-c", "user.name=core", "-c", "user.email=core@users.noreply.github.com"}
}

// gitRunner is Git with the authentication of a token (see Repo.authed).
type gitRunner struct {
	git Git
	env []string
}

// run runs git in dir and returns its trimmed standard output.
func (g gitRunner) run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := g.git(ctx, g.env, dir, "", args...)
	return strings.TrimSpace(out), err
}

// runInput is run with stdin.
func (g gitRunner) runInput(ctx context.Context, dir, stdin string, args ...string) (string, error) {
	out, err := g.raw(ctx, dir, stdin, args...)
	return strings.TrimSpace(out), err
}

// raw is run with stdin and git's standard output as it came.
func (g gitRunner) raw(ctx context.Context, dir, stdin string, args ...string) (string, error) {
	return g.git(ctx, g.env, dir, stdin, args...)
}

// with returns a runner that also sets the variables given (NAME=value).
func (g gitRunner) with(env ...string) gitRunner {
	return gitRunner{git: g.git, env: append(append([]string{}, g.env...), env...)}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

package session

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/land"
)

// origin is where a session's repository comes from and where its work
// lands: a local repository, or a GitHub repository.
type origin interface {
	// name is the repository as the record shows it: a path or owner/name.
	name() string
	// target resolves where the session starts and where it lands.
	target(ctx context.Context, opts Options, id string) (land.Target, error)
	// issue renders issue number as a goal, leaving out what changed after
	// before.
	issue(ctx context.Context, number int, before time.Time) (string, error)
	// clone makes the workspace at dest, on t.branch at t.sha.
	clone(ctx context.Context, dest string, t land.Target) error
	// land puts the committed work of a session that ended done where it
	// belongs, and records where (the PR URL, for GitHub).
	land(ctx context.Context, s *run) error
}

// openOrigin picks the origin for opts.Repo: a directory on this machine,
// else owner/name on GitHub.
func openOrigin(ctx context.Context, opts Options) (origin, error) {
	g := gitRunner{env: opts.Services.GitEnv}
	if fi, err := os.Stat(opts.Goal.Repo); err == nil && fi.IsDir() {
		return openLocalRepo(ctx, g, opts.Goal.Repo)
	}
	if gh.IsRepoName(opts.Goal.Repo) {
		if opts.Services.GitHub == nil {
			return nil, optionError("repo", "%s is a GitHub repository, and no GitHub client was configured", opts.Goal.Repo)
		}
		return openGitHubRepo(ctx, g, opts.Services.GitHub, opts.Goal.Repo)
	}
	if strings.HasPrefix(opts.Goal.Repo, "/") || strings.HasPrefix(opts.Goal.Repo, ".") || strings.HasPrefix(opts.Goal.Repo, "~") {
		return nil, optionError("repo", "%s: no such directory", opts.Goal.Repo)
	}
	return nil, optionError("repo", "must be owner/name or a local path to a git repository, got %q", opts.Goal.Repo)
}

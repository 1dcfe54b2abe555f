package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/land"
)

// One tree, from check to landing: at done the run's box is frozen (every
// process in it ended), and the harness takes one tree object of the
// workspace (land.Git.WorkTree). The result checks run on a checkout of
// exactly that tree, the landing guard reads that tree, the commit holds
// that tree (commitTree), and the push or the fork's review carries that
// commit. Nothing reads the live workspace again after the freeze.

// freeze ends everything in the run's box before its work is checked: the
// browser (a resumed run starts it again on first use), the build's
// warm-up, every background process and whatever a command left behind.
// Nothing in the box runs again unless the run resumes; its next command
// starts a new box.
func (s *run) freeze() {
	s.closeBrowser()
	s.closeMCP()
	s.stopWarm()
	if s.opts.Services.Sandbox == nil {
		return
	}
	if err := s.opts.Services.Sandbox.CloseBox(s.rec.Workspace); err != nil {
		fmt.Fprintf(s.opts.Live.Progress, "core: closing the run's box: %v\n", err)
	}
}

// reopen gives a run that resumes after done what freeze took: its
// browser, started again on first use.
func (s *run) reopen(ctx context.Context) error {
	if s.mcp == nil {
		s.openMCP(ctx)
	}
	if s.browser != nil || !s.opts.Browser.On {
		return nil
	}
	return s.openBrowser(ctx)
}

// commitTree commits tree on top of the workspace's HEAD with message and
// moves the branch there (only from the HEAD it read). The workspace's
// index follows the new commit; its files are not touched, so a resumed
// run sees what differs from the checked tree, if anything, as new work.
// When HEAD already holds tree (an earlier run landed it), HEAD is the
// commit.
func commitTree(ctx context.Context, g gitRunner, key land.SigningKey, ws, tree, message string) (string, error) {
	head, err := g.run(ctx, ws, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("commit: read the workspace's HEAD: %w", err)
	}
	if now, err := g.landGit().TreeOf(ctx, ws, head); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	} else if now == tree {
		return head, nil
	}
	var sha string
	if key.Set() {
		sha, err = key.CommitTree(ctx, g.landGit(), ws, tree, head, message)
	} else {
		// Never signed in the workspace, whose configuration the session
		// could change: a local repository asking for signatures gets its
		// commit signed there (land.Local), GitHub signs what the API makes.
		args := append(land.GitIdentity(), "commit-tree", "--no-gpg-sign", tree, "-p", head, "-F", "-")
		sha, err = g.runInput(ctx, ws, message, args...)
	}
	if err != nil {
		return "", fmt.Errorf("commit the checked tree %s: %w", clip.Hash(tree), err)
	}
	subject, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	if _, err := g.run(ctx, ws, "update-ref", "-m", g.scrub.String("commit: "+subject), "HEAD", sha, head); err != nil {
		return "", fmt.Errorf("move the branch to the new commit: %w", err)
	}
	if _, err := g.run(ctx, ws, "read-tree", sha); err != nil {
		return "", fmt.Errorf("set the workspace's index to the new commit: %w", err)
	}
	return sha, nil
}

// checkSizes refuses a tree whose changed files include one over
// land.MaxBlob.
func (s *run) checkSizes(ctx context.Context, tree string, changed []string) error {
	big, err := s.git.landGit().Oversized(ctx, s.rec.Workspace, tree, changed)
	if err != nil {
		return err
	}
	if len(big) == 0 {
		return nil
	}
	return &LandingError{What: fmt.Sprintf("adds files over %d MiB", land.MaxBlob>>20), Files: big, Why: fmt.Sprintf(
		"GitHub refuses a push that holds a file over %d MiB, so it could never land: remove them from the workspace %s (or add them to .gitignore) and resume the session",
		land.MaxBlob>>20, s.rec.Workspace)}
}

// checkCommitTree refuses to push or post a commit whose tree is not the
// one the checks ran on.
func (s *run) checkCommitTree(ctx context.Context) error {
	tree, err := s.git.landGit().TreeOf(ctx, s.rec.Workspace, s.rec.Commit)
	if err != nil {
		return err
	}
	return land.SameTree(s.tree, tree, fmt.Sprintf("the commit %s does not hold the checked tree; resume the session to check it again (core session resume %s)", clip.Hash(s.rec.Commit), s.rec.ID))
}

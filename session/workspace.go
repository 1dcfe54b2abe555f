package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/status"
)

// localRepo is a repository given as a path on this machine. Its working
// tree, index and HEAD are never touched: core clones it, and lands by
// fetching the session's branch into it as a new ref.
type localRepo struct {
	path string // absolute
	git  gitRunner
}

// openLocalRepo checks that path is a git repository.
func openLocalRepo(ctx context.Context, g gitRunner, path string) (*localRepo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &ConfigError{Option: "repo", Err: fmt.Errorf("%s: %w", path, err)}
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, optionError("repo", "must be owner/name or a local path to a git repository; %q is not a directory", path)
	}
	if _, err := g.run(ctx, abs, "rev-parse", "--git-dir"); err != nil {
		return nil, &ConfigError{Option: "repo", Err: fmt.Errorf("%s is not a git repository: %w", path, err)}
	}
	return &localRepo{path: abs, git: g}, nil
}

func (r *localRepo) name() string { return r.path }

// target resolves the base and the landing branch. A local repository
// never lands on the branch it has checked out.
func (r *localRepo) target(ctx context.Context, opts Options, id string) (target, error) {
	if opts.Goal.PullRequest != 0 {
		return target{}, fmt.Errorf("pull request #%d: pull requests need a GitHub repository (owner/name)", opts.Goal.PullRequest)
	}
	base, sha, err := r.resolveBase(ctx, opts.Goal.Base)
	if err != nil {
		return target{}, err
	}
	branch := opts.Goal.Branch
	if branch == "" {
		branch = status.SessionBranch(id)
	}
	if err := checkBranchName(ctx, r.git, branch); err != nil {
		return target{}, err
	}
	if err := r.checkNotCheckedOut(ctx, branch); err != nil {
		return target{}, err
	}
	t := target{base: base, sha: sha, branch: branch}
	if opts.Goal.Base == "" && !opts.Goal.Clean {
		snap, n, err := r.snapshot(ctx, id, sha)
		if err != nil {
			return target{}, err
		}
		if snap != "" {
			t.sha, t.onto, t.uncommitted, t.keep = snap, sha, n, inputsRef(id)
		}
	}
	return t, nil
}

func (r *localRepo) issue(context.Context, int, time.Time) (string, error) {
	return "", optionError("issue", "needs a GitHub repository (owner/name); %s is a local path", r.path)
}

// resolveBase turns a branch, tag or commit of the repository into a full
// commit SHA. An empty base is the repository's default branch: the branch
// its HEAD names.
func (r *localRepo) resolveBase(ctx context.Context, base string) (name, sha string, err error) {
	if base == "" {
		branch, err := r.git.run(ctx, r.path, "symbolic-ref", "--quiet", "--short", "HEAD")
		if err != nil || branch == "" {
			base = "HEAD"
		} else {
			base = branch
		}
	}
	sha, err = r.git.run(ctx, r.path, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}")
	if err != nil || sha == "" {
		if commits, _ := r.git.run(ctx, r.path, "rev-list", "-n", "1", "--all"); commits == "" {
			return "", "", optionError("repo", "the repository %s has no commits yet: commit something first", r.path)
		}
		return "", "", optionError("base", "%q: no such branch or commit in %s", base, r.path)
	}
	return base, sha, nil
}

// clone makes the session's workspace at dest: a clone of the repository
// with the branch checked out at the start commit.
func (r *localRepo) clone(ctx context.Context, dest string, t target) error {
	if t.keep != "" {
		if err := r.keepSnapshot(ctx, t.keep, t.sha); err != nil {
			return err
		}
	}
	return cloneAt(ctx, r.git, r.path, r.path, dest, t)
}

// landRef is where, in the workspace, the commit that lands a session that
// started from uncommitted work is kept.
const landRef = "refs/core/land"

// cloneAt clones source (named name in errors) into dest, fetches the
// start commit when no branch holds it, and checks out the session's branch
// there. Options such as --filter go before the source.
func cloneAt(ctx context.Context, g gitRunner, source, name, dest string, t target, options ...string) error {
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("workspace %s already exists", dest)
	}
	args := append(append([]string{"clone", "--quiet", "--no-checkout"}, options...), "--", source, dest)
	if _, err := g.run(ctx, filepath.Dir(dest), args...); err != nil {
		return fmt.Errorf("clone %s: %w", name, err)
	}
	if _, err := g.run(ctx, dest, "cat-file", "-e", t.sha+"^{commit}"); err != nil {
		want := t.sha
		if t.fetch != "" {
			want = t.fetch
		}
		if _, err := g.run(ctx, dest, "fetch", "--quiet", "--no-tags", "origin", want); err != nil {
			return optionError("base", "%s: commit %s not found in %s", t.base, short(t.sha), name)
		}
	}
	if _, err := g.run(ctx, dest, "checkout", "--quiet", "-B", t.branch, t.sha); err != nil {
		return fmt.Errorf("check out %s in the workspace: %w", t.base, err)
	}
	return nil
}

// land puts the workspace's branch into the repository as a ref, by
// fetching it from the workspace: the repository's working tree, index and
// HEAD stay as they are. A branch that exists there must fast-forward.
// Its commit holds the checked tree, except for a session that started
// from the user's uncommitted work: that work is left out of what lands,
// so the landed tree differs from the checked one, and a finding (in the
// report and the summary) and the commit's message say so.
func (r *localRepo) land(ctx context.Context, s *run) error {
	ws, branch := s.rec.Workspace, s.rec.Branch
	if err := r.checkNotCheckedOut(ctx, branch); err != nil {
		return err
	}
	ref := "refs/heads/" + branch
	src := ref
	if s.rec.LandOnto == "" {
		if err := s.checkCommitTree(ctx); err != nil {
			return err
		}
	}
	if onto := s.rec.LandOnto; onto != "" {
		// Publish the session's changes without the user's uncommitted
		// work: rebuilt onto the commit it sat on (or onto what an earlier
		// run landed).
		parent := onto
		if tip, err := s.git.run(ctx, ws, "rev-parse", "--verify", "--quiet", landRef); err == nil && tip != "" {
			parent = tip
		}
		sha, err := rebuild(ctx, s.git, ws, s.rec.StartCommit, onto, parent, landRef)
		var oe *overlapError
		if errors.As(err, &oe) {
			// The user may have committed that work since (as the refusal
			// asks): land onto what the base is now.
			sha, err = r.rebuildOntoBase(ctx, s, oe)
		}
		if err != nil {
			return err
		}
		s.rec.Commit, src = sha, landRef
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingLeftOut, Detail: fmt.Sprintf(
			"the checks ran on tree %s, which holds the %d uncommitted %s the session started from; the landed commit %s leaves %s out, and its own tree was not checked",
			short(s.tree), s.rec.Uncommitted, plural(s.rec.Uncommitted, "change", "changes"), short(sha), plural(s.rec.Uncommitted, "it", "them"))})
	}
	if _, err := r.git.run(ctx, r.path, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", ws, src+":"+ref); err != nil {
		return fmt.Errorf("land branch %s in %s: %w", branch, r.path, err)
	}
	return nil
}

// rebuildOntoBase lands the session's changes onto the commit the base
// names in the repository now, when that is not the commit the session
// started on: the user committed the work the changes build on. When they
// still do not apply, oe comes back saying what to do.
func (r *localRepo) rebuildOntoBase(ctx context.Context, s *run, oe *overlapError) (string, error) {
	ws := s.rec.Workspace
	oe.advice = fmt.Sprintf("commit that work in %s (on %s), then land the session with core session land %s; or start again with --clean", r.path, s.rec.Base, s.rec.ID)
	tip, err := r.git.run(ctx, r.path, "rev-parse", "--verify", "--quiet", "--end-of-options", s.rec.Base+"^{commit}")
	if err != nil || tip == "" || tip == s.rec.LandOnto {
		return "", oe
	}
	if _, err := s.git.run(ctx, ws, "cat-file", "-e", tip+"^{commit}"); err != nil {
		if _, err := s.git.run(ctx, ws, "fetch", "--quiet", "--no-tags", "origin", tip); err != nil {
			return "", fmt.Errorf("fetch %s of %s into the workspace: %w", s.rec.Base, r.path, err)
		}
	}
	sha, err := rebuild(ctx, s.git, ws, s.rec.StartCommit, tip, tip, landRef)
	if err != nil {
		var again *overlapError
		if errors.As(err, &again) {
			again.advice = oe.advice
		}
		return "", err
	}
	s.rec.LandOnto = tip
	return sha, nil
}

// checkNotCheckedOut refuses to land on the branch the repository has
// checked out: landing never moves the user's HEAD or working tree.
func (r *localRepo) checkNotCheckedOut(ctx context.Context, branch string) error {
	current, _ := r.git.run(ctx, r.path, "symbolic-ref", "--quiet", "--short", "HEAD")
	if current == branch {
		return fmt.Errorf("branch %s is checked out in %s: land on another branch (--branch)", branch, r.path)
	}
	return nil
}

// diffTree returns every change from commit from to tree, new files
// included.
func diffTree(ctx context.Context, g gitRunner, ws, from, tree string) (string, error) {
	out, err := g.run(ctx, ws, "diff", "--no-color", "--no-ext-diff", from, tree)
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	return out, nil
}

// commitMessage builds the landing commit's message from the done summary.
// The summary is the model's own claim: when the harness's contract broke,
// the subject is marked as a pull request's title is, and the body says
// the checks disagree; when it ran no checks, or a check could not judge
// the result, that the claim is unverified.
func commitMessage(summary, id string, c *contract.Contract) string {
	summary = strings.TrimSpace(summary)
	if summary == "" {
		summary = "core session " + id
	}
	subject, body, _ := strings.Cut(summary, "\n")
	body = strings.TrimSpace(body)
	var verdict string
	switch {
	case c.Broken():
		subject = contract.FailingTitlePrefix + subject
		verdict = "The harness's checks: " + c.Line() + ". What follows is the model's summary, which they contradict."
	case c.Unjudged():
		verdict = "The harness's checks: " + c.Line() + ", for a cause of the environment's, not the code's: the model's summary below is unverified there."
	case c.None():
		verdict = "The harness ran no checks on this result: the model's summary below is unverified."
	}
	msg := oneLine(subject, 72) + "\n"
	if verdict != "" {
		if body == "" {
			body = summary
		}
		body = verdict + "\n\n" + body
	}
	if body != "" {
		msg += "\n" + body + "\n"
	}
	msg += "\nSession: " + id + "\n"
	if c != nil && c.Tree != "" && len(c.Checks) > 0 {
		msg += "Checked-tree: " + c.Tree + "\n"
	}
	return msg
}

// checkBranchName refuses a branch name git would refuse.
func checkBranchName(ctx context.Context, g gitRunner, branch string) error {
	if _, err := g.run(ctx, "", "check-ref-format", "--branch", branch); err != nil {
		return optionError("branch", "%q is not a valid branch name", branch)
	}
	return nil
}

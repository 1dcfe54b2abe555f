package land

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/status"
)

// Local is a repository given as a path on this machine. Its working
// tree, index and HEAD are never touched: core clones it, and lands by
// fetching the session's branch into it as a new ref.
type Local struct {
	path string // absolute
	git  gitRunner
}

// OpenLocal checks that path is a git repository; g runs git for it.
func OpenLocal(ctx context.Context, g Git, path string) (*Local, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &OptionError{Option: "repo", Err: fmt.Errorf("%s: %w", path, err)}
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, optionError("repo", "must be owner/name or a local path to a git repository; %q is not a directory", path)
	}
	if _, err := (gitRunner{git: g}).run(ctx, abs, "rev-parse", "--git-dir"); err != nil {
		return nil, &OptionError{Option: "repo", Err: fmt.Errorf("%s is not a git repository: %w", path, err)}
	}
	return &Local{path: abs, git: gitRunner{git: g}}, nil
}

// Name is the repository as the record shows it: its absolute path.
func (r *Local) Name() string { return r.path }

// Target resolves the base and the landing branch. A local repository
// never lands on the branch it has checked out.
func (r *Local) Target(ctx context.Context, opts Goal, id string) (Target, error) {
	if opts.PullRequest != 0 {
		return Target{}, fmt.Errorf("pull request #%d: pull requests need a GitHub repository (owner/name)", opts.PullRequest)
	}
	base, sha, err := r.resolveBase(ctx, opts.Base)
	if err != nil {
		return Target{}, err
	}
	branch := opts.Branch
	if branch == "" {
		branch = status.SessionBranch(id)
	}
	if err := checkBranchName(ctx, r.git, branch); err != nil {
		return Target{}, err
	}
	if err := r.checkNotCheckedOut(ctx, branch); err != nil {
		return Target{}, err
	}
	t := Target{Base: base, SHA: sha, Branch: branch}
	if opts.Base == "" && !opts.Clean {
		snap, n, err := r.snapshot(ctx, id, sha)
		if err != nil {
			return Target{}, err
		}
		if snap != "" {
			t.SHA, t.Onto, t.Uncommitted, t.Keep = snap, sha, n, InputsRef(id)
		}
	}
	return t, nil
}

// Issue refuses: issues need a GitHub repository.
func (r *Local) Issue(context.Context, int, time.Time) (string, error) {
	return "", optionError("issue", "needs a GitHub repository (owner/name); %s is a local path", r.path)
}

// resolveBase turns a branch, tag or commit of the repository into a full
// commit SHA. An empty base is the repository's default branch: the branch
// its HEAD names.
func (r *Local) resolveBase(ctx context.Context, base string) (name, sha string, err error) {
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

// Clone makes the session's workspace at dest: a clone of the repository
// with the branch checked out at the start commit.
func (r *Local) Clone(ctx context.Context, dest string, t Target) error {
	if t.Keep != "" {
		if err := r.keepSnapshot(ctx, t.Keep, t.SHA); err != nil {
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
func cloneAt(ctx context.Context, g gitRunner, source, name, dest string, t Target, options ...string) error {
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("workspace %s already exists", dest)
	}
	args := append(append([]string{"clone", "--quiet", "--no-checkout"}, options...), "--", source, dest)
	if _, err := g.run(ctx, filepath.Dir(dest), args...); err != nil {
		return fmt.Errorf("clone %s: %w", name, err)
	}
	if _, err := g.run(ctx, dest, "cat-file", "-e", t.SHA+"^{commit}"); err != nil {
		want := t.SHA
		if t.Fetch != "" {
			want = t.Fetch
		}
		_, err := g.run(ctx, dest, "fetch", "--quiet", "--no-tags", "origin", want)
		if err == nil {
			_, err = g.run(ctx, dest, "cat-file", "-e", t.SHA+"^{commit}")
		}
		switch {
		case err != nil && t.Pull != 0:
			// The pull request's head as core read it is gone: its
			// branch was force-pushed, and the old head collected.
			return fmt.Errorf("the head %s of pull request #%d cannot be fetched from %s: no ref serves it any more (its branch was force-pushed since core read it?); run again: it starts from the pull request's head as it is then", clip.Hash(t.SHA), t.Pull, name)
		case err != nil:
			return optionError("base", "%s: commit %s not found in %s", t.Base, clip.Hash(t.SHA), name)
		}
	}
	if _, err := g.run(ctx, dest, "checkout", "--quiet", "-B", t.Branch, t.SHA); err != nil {
		return fmt.Errorf("check out %s in the workspace: %w", t.Base, err)
	}
	return nil
}

// Land puts the workspace's branch into the repository as a ref, by
// fetching it from the workspace: the repository's working tree, index and
// HEAD stay as they are. A branch that exists there must fast-forward.
// Its commit holds the checked tree, except for a session that started
// from the user's uncommitted work: that work is left out of what lands,
// so the landed tree differs from the checked one, and a finding (in the
// report and the summary: s.LeftOut) and the commit's message say so.
func (r *Local) Land(ctx context.Context, s *Work) error {
	ws, branch := s.Workspace, s.Branch
	if err := r.checkNotCheckedOut(ctx, branch); err != nil {
		return err
	}
	ref := "refs/heads/" + branch
	src := ref
	if s.LandOnto == "" {
		if err := s.CheckCommitTree(ctx); err != nil {
			return err
		}
	}
	if onto := s.LandOnto; onto != "" {
		// Publish the session's changes without the user's uncommitted
		// work: rebuilt onto the commit it sat on (or onto what an earlier
		// run landed).
		parent := onto
		g := gitRunner{git: s.Git}
		if tip, err := g.run(ctx, ws, "rev-parse", "--verify", "--quiet", landRef); err == nil && tip != "" {
			parent = tip
		}
		sha, err := rebuild(ctx, g, ws, s.StartCommit, onto, parent, landRef)
		var oe *OverlapError
		if errors.As(err, &oe) {
			// The user may have committed that work since (as the refusal
			// asks): land onto what the base is now.
			sha, err = r.rebuildOntoBase(ctx, s, oe)
		}
		if err != nil {
			return err
		}
		s.Commit, src = sha, landRef
		s.LeftOut = fmt.Sprintf(
			"the checks ran on tree %s, which holds the %d uncommitted %s the session started from; the landed commit %s leaves %s out, and its own tree was not checked",
			clip.Hash(s.Tree), s.Uncommitted, plural(s.Uncommitted, "change", "changes"), clip.Hash(sha), plural(s.Uncommitted, "it", "them"))
	}
	if r.signs(ctx) {
		sha, err := r.landSigned(ctx, s, src, branch)
		if err != nil {
			return err
		}
		// The finding names the commit that landed: the signed one.
		s.LeftOut = strings.Replace(s.LeftOut, clip.Hash(s.Commit), clip.Hash(sha), 1)
		s.Commit = sha
		return nil
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
func (r *Local) rebuildOntoBase(ctx context.Context, s *Work, oe *OverlapError) (string, error) {
	ws, g := s.Workspace, gitRunner{git: s.Git}
	oe.advice = fmt.Sprintf("commit that work in %s (on %s), then land the session with core session land %s; or start again with --clean", r.path, s.Base, s.ID)
	tip, err := r.git.run(ctx, r.path, "rev-parse", "--verify", "--quiet", "--end-of-options", s.Base+"^{commit}")
	if err != nil || tip == "" || tip == s.LandOnto {
		return "", oe
	}
	if _, err := g.run(ctx, ws, "cat-file", "-e", tip+"^{commit}"); err != nil {
		if _, err := g.run(ctx, ws, "fetch", "--quiet", "--no-tags", "origin", tip); err != nil {
			return "", fmt.Errorf("fetch %s of %s into the workspace: %w", s.Base, r.path, err)
		}
	}
	sha, err := rebuild(ctx, g, ws, s.StartCommit, tip, tip, landRef)
	if err != nil {
		var again *OverlapError
		if errors.As(err, &again) {
			again.advice = oe.advice
		}
		return "", err
	}
	s.LandOnto = tip
	return sha, nil
}

// checkNotCheckedOut refuses to land on the branch the repository has
// checked out: landing never moves the user's HEAD or working tree.
func (r *Local) checkNotCheckedOut(ctx context.Context, branch string) error {
	current, _ := r.git.run(ctx, r.path, "symbolic-ref", "--quiet", "--short", "HEAD")
	if current == branch {
		return fmt.Errorf("branch %s is checked out in %s: land on another branch (--branch)", branch, r.path)
	}
	return nil
}

// CommitMessage builds the landing commit's message from the done summary.
// The summary is the model's own claim: when the harness's contract broke,
// the subject is marked as a pull request's title is, and the body says
// the checks disagree; when it ran no checks, or a check could not judge
// the result, that the claim is unverified.
func CommitMessage(summary, id string, c *contract.Contract) string {
	summary = strings.TrimSpace(summary)
	if summary == "" {
		summary = "core session " + id
	}
	first, body, _ := strings.Cut(summary, "\n")
	prefix := ""
	if c.Broken() {
		prefix = contract.FailingTitlePrefix
	}
	// The subject is a whole sentence, or cut at a word; the body keeps
	// what it left out.
	subject, rest := clip.Subject(first, 72-utf8.RuneCountInString(prefix))
	subject = prefix + subject
	body = strings.TrimSpace(strings.TrimSpace(rest) + "\n\n" + strings.TrimSpace(body))
	var verdict string
	switch {
	case c.Broken():
		verdict = "The harness's checks: " + c.Line() + ". What follows is the model's summary, which they contradict."
	case c.Unjudged():
		verdict = "The harness's checks: " + c.Line() + ", for a cause of the environment's, not the code's: the model's summary below is unverified there."
	case c.None():
		verdict = "The harness ran no checks on this result: the model's summary below is unverified."
	}
	msg := subject + "\n"
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

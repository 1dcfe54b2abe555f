package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/testclass"
)

// MaxReproductionBytes is the largest reproduction file the harness
// writes: as large as a test file the classification runs (a reviewer's
// reproduction may be a whole test file, rewritten).
const MaxReproductionBytes = 1 << 20

// Harness runs a finding's reproduction the way the contract runs a
// check: confined, in a fresh scratch copy of the head's tree, then of the
// base's, each made from the clone's git objects alone.
type Harness struct {
	// Confinement is how checks run: the sandbox, the tier, the timeout
	// and the build's ceiling.
	Confinement contract.Confinement
	Git         contract.Git
	// Clone is a clone that holds both commits; only its git objects are
	// read (the run's workspace is fine).
	Clone string
	// Base and Head are the two commits, by their full SHAs.
	Base, Head string
	// Scrub removes secrets from what the harness keeps of an output; nil
	// keeps it as it is.
	Scrub func(string) string
}

// Reproduce runs f's reproduction on the head, then on the base, and
// judges f (Judge): it returns f with the runs and the verdict. A
// reproduction the harness refuses to write or to run (a path outside the
// repository, under a link or a submodule; a command the tier does not
// let run unattended) does not run, and Why says why. An error is the
// machine's (a checkout failed, ctx ended); what the model can fix is in
// Why.
func (h Harness) Reproduce(ctx context.Context, f Finding) (Finding, error) {
	if err := h.check(); err != nil {
		return f, err
	}
	f.Why = ""
	if f.Reproduction == nil {
		return Judge(f), nil
	}
	r := *f.Reproduction
	r.Head, r.Base = nil, nil
	f.Reproduction = &r
	why, err := h.refusal(ctx, r)
	if err != nil || why != "" {
		f.Why = "refused: " + why
		return Judge(f), err
	}
	if r.Head, err = h.run(ctx, h.Head, r); err != nil {
		return f, err
	}
	if r.Base, err = h.run(ctx, h.Base, r); err != nil {
		return f, err
	}
	return Judge(f), nil
}

// check says what is missing from h, or which commit is not named by its
// full SHA.
func (h Harness) check() error {
	switch {
	case h.Git == nil || h.Confinement.Sandbox == nil || h.Clone == "":
		return errors.New("reproduce a finding: the harness needs a Git runner, a sandbox and a clone")
	case !testclass.IsCommitID(h.Base) || !testclass.IsCommitID(h.Head):
		return fmt.Errorf("reproduce a finding: the base and the head must be commits' full SHAs, got %q and %q", h.Base, h.Head)
	}
	return nil
}

// refusal says why r is not written or run, or "": its path is not a
// file's inside the repository, in the head's or the base's tree; its
// content is too big; its command is not one the tier lets run
// unattended.
func (h Harness) refusal(ctx context.Context, r Reproduction) (string, error) {
	if why := testclass.BadPath(r.Path); why != "" {
		return fmt.Sprintf("the path %q is %s", r.Path, why), nil
	}
	if strings.ContainsFunc(r.Path, quoted) {
		// git ls-tree quotes such a name, and the tree could not be
		// looked up for links on the way.
		return fmt.Sprintf("the path %q has characters git quotes (not printable ASCII, or a quote or a backslash): name the file in plain ASCII", r.Path), nil
	}
	if len(r.Content) > MaxReproductionBytes {
		return fmt.Sprintf("the file is %d bytes, over the %d a reproduction may have", len(r.Content), MaxReproductionBytes), nil
	}
	if d := lang.Check(h.Confinement.Tier, r.Command); !d.Allowed() {
		return "the command cannot run unattended: " + d.Reason, nil
	} else if d.Network {
		return "the command fetches from the network: a reproduction only runs what is there", nil
	}
	for _, side := range []struct{ name, commit string }{{"head", h.Head}, {"base", h.Base}} {
		why, err := treeRefusal(ctx, h.Git, h.Clone, side.commit, r.Path)
		if err != nil || why != "" {
			return fmt.Sprintf("in the %s's tree, %s", side.name, why), err
		}
	}
	return "", nil
}

// quoted reports whether git quotes r in a path it prints.
func quoted(r rune) bool { return r < 0x20 || r >= 0x7f || r == '"' || r == '\\' }

// treeRefusal says why p cannot be written in a checkout of commit, from
// the commit's tree: a folder on the way is a link, a submodule or a
// file, or p is a link, a folder or a submodule, which it would replace.
func treeRefusal(ctx context.Context, git contract.Git, clone, commit, p string) (string, error) {
	parts := strings.Split(p, "/")
	for i := 1; i <= len(parts); i++ {
		at := strings.Join(parts[:i], "/")
		e, err := testclass.LsTree(ctx, git, clone, commit, at)
		if err != nil {
			return "", err
		}
		switch {
		case e.Mode == "":
			return "", nil // not there: the rest is new
		case e.Mode == "120000":
			return fmt.Sprintf("%s is a symbolic link: nothing is written through it or over it", at), nil
		case e.Kind == "commit":
			return fmt.Sprintf("%s is a submodule: nothing is written in it or over it", at), nil
		case i < len(parts) && e.Kind != "tree":
			return fmt.Sprintf("%s is a file, not a folder", at), nil
		case i == len(parts) && e.Kind != "blob":
			return fmt.Sprintf("%s is a folder: a reproduction is a file", at), nil
		}
	}
	return "", nil
}

// run runs r on commit: in a scratch checkout of its tree, made beside the
// clone and removed after, with r's file written there.
func (h Harness) run(ctx context.Context, commit string, r Reproduction) (*Ran, error) {
	dir, err := os.MkdirTemp(filepath.Dir(h.Clone), filepath.Base(h.Clone)+".repro-")
	if err != nil {
		return nil, fmt.Errorf("make a scratch copy for a reproduction: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := contract.CheckoutTree(ctx, h.Git, h.Clone, dir, commit); err != nil {
		return nil, fmt.Errorf("check out %s for a reproduction: %w", commit, err)
	}
	if err := writeBeneath(dir, r.Path, r.Content); err != nil {
		// The tree was looked at (treeRefusal); what still keeps the file
		// out of the copy confirms nothing either way.
		return &Ran{Exit: -1, Error: h.scrub(fmt.Sprintf("the file could not be written in the scratch copy: %v", err))}, nil
	}
	mountAt := h.Clone
	if real, err := filepath.EvalSymlinks(mountAt); err == nil {
		mountAt = real
	}
	res := h.Confinement.Run(ctx, dir, mountAt, r.Command)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ranOf(res, r.Expect, h.scrub), nil
}

// scrub is h.Scrub, or the identity.
func (h Harness) scrub(s string) string {
	if h.Scrub == nil {
		return s
	}
	return h.Scrub(s)
}

// writeBeneath writes content at p (slash-separated, checked by
// treeRefusal) in dir, never through a link: its folders are made beneath
// dir (os.Root), a file there is replaced, not written through, and the
// file is created anew with O_EXCL and O_NOFOLLOW.
func writeBeneath(dir, p, content string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(p)
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Package verify re-runs a receipt's checks (session/receipt) on this
// machine: it refuses a receipt it cannot trust or run before running
// anything (a newer format, bytes edited after core wrote them, a check the
// tier would not run unattended, a tool this machine lacks, a commit the
// repository does not have or whose tree is not the receipt's), clones the
// repository into a workspace of its own, runs every check on the start
// commit and on the result tree through contract.Checker, confined as a
// session confines them, and says check by check whether the same verdict
// came out.
package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/receipt"
)

// Options are what a verification is given.
type Options struct {
	// Receipt is the receipt's bytes, as written.
	Receipt []byte
	// Published are the hashes the receipt must have (a check run's
	// summary, a pull request's body, --hash): a receipt edited after it
	// was made has another.
	Published []Published
	// Repo is where the commits are (a local directory or a git URL);
	// empty means the receipt's repository.
	Repo string
	// Clone clones a GitHub repository ("owner/name") into dest, the way
	// a session clones it (its token); nil refuses one.
	Clone func(ctx context.Context, full, dest string) error
	// Fetch fetches a commit by its hash into ws, the clone Clone made of
	// full; nil fetches it from the clone's origin with git.
	Fetch func(ctx context.Context, full, ws, commit string) error
	// Sandbox confines the checks; Path is this machine's PATH, where the
	// checks' tools are looked for; Dir is where the workspace is made
	// (empty: the system's temporary directory).
	Sandbox *sandbox.Sandbox
	Path    string
	Dir     string
	// GitEnv is the environment git runs with (PATH, HOME).
	GitEnv []string
	// Out is where the verdicts are printed.
	Out io.Writer
}

// Published is a receipt's hash as it was published, and where.
type Published struct {
	Hash, From string
}

// ErrDifferent is the error of a verification whose checks did not all
// come out the same.
var ErrDifferent = errors.New("not verified: the checks did not all come out as the receipt says")

// InputError is a receipt or a repository that cannot be verified: nothing
// was run.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() + " (nothing was run)" }
func (e *InputError) Unwrap() error { return e.Err }

func refuse(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// Run verifies the receipt: nil when every check came out the same,
// ErrDifferent when one did not, an *InputError when nothing could run.
func Run(ctx context.Context, o Options) error {
	r, tier, err := read(o)
	if err != nil {
		return err
	}
	if err := o.Sandbox.Require(ctx, tier); err != nil {
		return refuse("the receipt's checks ran at the verify tier %s, which this machine cannot confine: %w", tier, err)
	}
	dir, err := os.MkdirTemp(o.Dir, "core-verify-")
	if err != nil {
		return fmt.Errorf("make the verification's workspace: %w", err)
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "repo")
	g := gitIn(o.GitEnv)
	if err := clone(ctx, o, r, g, ws); err != nil {
		return err
	}
	if err := haveCommits(ctx, o, g, ws, r); err != nil {
		return err
	}
	if _, err := g(ctx, ws, "checkout", "--quiet", "--detach", r.Start.Commit); err != nil {
		return fmt.Errorf("check out the start commit: %w", err)
	}
	return rerun(ctx, o, r, tier, g, ws)
}

// hexName is a commit or tree name as git writes it (SHA-1 or SHA-256).
var hexName = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// read parses and checks the receipt, and every check's tool, before
// anything runs.
func read(o Options) (*receipt.Receipt, lang.Tier, error) {
	for _, p := range o.Published {
		if h := receipt.Hash(o.Receipt); h != p.Hash {
			return nil, "", refuse("the receipt was edited after it was made: its hash is %s, and %s names %s", h, p.From, p.Hash)
		}
	}
	r, err := receipt.Parse(o.Receipt)
	if err != nil {
		return nil, "", refuse("%w", err)
	}
	for _, side := range []receipt.Side{r.Start, r.Result} {
		if !hexName.MatchString(side.Commit) || !hexName.MatchString(side.Tree) {
			return nil, "", refuse("the receipt names no commit and tree for each side (%q, %q): a receipt of work that never landed cannot be verified", side.Commit, side.Tree)
		}
	}
	tier, err := lang.ParseTier(r.Sandbox.Tier)
	if err != nil || tier == lang.TierOff {
		return nil, "", refuse("the receipt's tier %q is not one checks run at (build or test)", r.Sandbox.Tier)
	}
	if len(r.Checks) == 0 {
		return nil, "", refuse("the receipt holds no check: there is nothing to re-run")
	}
	for _, ch := range r.Checks {
		if d := lang.Check(tier, ch.Argv); !d.Allowed() {
			return nil, "", refuse("the receipt's check %q is not one the verify tier %s runs unattended: %s", strings.Join(ch.Argv, " "), tier, d.Reason)
		}
		if ch.Dir != receipt.Dir {
			return nil, "", refuse("the receipt's check %q runs in %q: core runs checks at the repository's root", strings.Join(ch.Argv, " "), ch.Dir)
		}
		if _, err := lookPath(o.Path, ch.Argv[0]); err != nil {
			return nil, "", refuse("the check %q needs %s, which is not on this machine's PATH: install it, then verify again", strings.Join(ch.Argv, " "), ch.Argv[0])
		}
	}
	return r, tier, nil
}

func orWords(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// rerun runs the receipt's checks on both commits, says what came out,
// and, when the branch the result landed on now holds another tree, runs
// them there too.
func rerun(ctx context.Context, o Options, r *receipt.Receipt, tier lang.Tier, g contract.Git, ws string) error {
	checks := make([]contract.Check, 0, len(r.Checks))
	argvs := make([][]string, 0, len(r.Checks))
	for _, ch := range r.Checks {
		checks = append(checks, contract.Check{Command: ch.Argv, Source: contract.CheckSource(ch.Source)})
		argvs = append(argvs, ch.Argv)
	}
	timeout := time.Duration(r.Checks[0].TimeoutSeconds * float64(time.Second))
	ceiling := time.Duration(r.BuildCeilingSeconds * float64(time.Second))
	checker := contract.NewChecker(o.Sandbox, tier, timeout, ceiling, g, ws, r.Start.Commit)
	defer checker.Close()
	fmt.Fprintf(o.Out, "verifying %s: %d %s on %s and %s\n", r.Repository, len(checks), plural(len(checks), "check", "checks"), short(r.Start.Commit), short(r.Result.Commit))
	noteMachine(ctx, o, r, tier, argvs)
	k := checker.Contract(ctx, checks, r.Result.Tree)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stopped while the checks ran: %w", err)
	}
	same := compare(o.Out, r.Checks, k, "")
	if moved, err := branchMoved(ctx, o, r, g, ws); err != nil {
		return err
	} else if moved != "" {
		fmt.Fprintf(o.Out, "different: the branch %s now holds tree %s, not the checked tree %s\n", r.Branch, short(moved), short(r.Result.Tree))
		compare(o.Out, r.Checks, checker.Contract(ctx, checks, moved), "on the branch's head: ")
		same = false
	}
	if !same {
		return ErrDifferent
	}
	fmt.Fprintf(o.Out, "verified: every check came out as the receipt says\n")
	return nil
}

// noteMachine says where this machine's confinement or toolchains differ
// from the receipt's: a different verdict may be theirs.
func noteMachine(ctx context.Context, o Options, r *receipt.Receipt, tier lang.Tier, argvs [][]string) {
	backend := o.Sandbox.Probe(ctx).Backend
	profile, tools := o.Sandbox.Fingerprint(ctx, backend, tier, argvs)
	if h := profile.Hash(); h != r.Sandbox.Profile || backend != r.Sandbox.Backend {
		fmt.Fprintf(o.Out, "note: this machine's sandbox profile differs from the receipt's (%s %s here, %s %s in the receipt)\n", orWords(backend, "no backend"), h, r.Sandbox.Backend, r.Sandbox.Profile)
	}
	for name, v := range r.Sandbox.Toolchains {
		if tools[name] != v {
			fmt.Fprintf(o.Out, "note: the %s toolchain differs: %q here, %q in the receipt\n", name, orWords(tools[name], "none"), v)
		}
	}
	images := o.Sandbox.Images(ctx, argvs)
	for ref, digest := range r.Sandbox.Images {
		if images[ref] != digest {
			fmt.Fprintf(o.Out, "note: the image %s differs: %s here, %s in the receipt\n", ref, orWords(images[ref], "none"), digest)
		}
	}
}

func short(sha string) string { return sha[:min(12, len(sha))] }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

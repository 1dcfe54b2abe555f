package contract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
)

// Checker runs a session's checks for its contract: baselines in a clean
// checkout of the start commit, results in a checkout of the tree frozen
// at done (each its own directory, seen at the workspace's path, so that
// the workspace is never disturbed and never read). Each baseline starts as
// soon as its check is known (the checks at the start of the turns, a
// verification command the model runs for the first time), in the
// background, beside the model's work, so that done finds them finished
// or under way; the baselines take turns in the base checkout, so that no
// check sees another's files. A baseline runs once a run, however many
// times the contract is asked for.
type Checker struct {
	checkRunner
	checkDirs
	checkBackground
	checkBasePrep

	mu   sync.Mutex
	base map[string]*baseRun // by the check's argv
}

// checkRunner is how a check runs: in which sandbox, at which tier, for
// how long.
type checkRunner struct {
	sb      *sandbox.Sandbox
	tier    lang.Tier
	timeout time.Duration
	ceiling time.Duration // Verification.BuildCeiling
	git     Git
}

// Git runs git in dir and returns its trimmed standard output; a failure
// carries git's own words.
type Git func(ctx context.Context, dir string, args ...string) (string, error)

// checkDirs is where the checks run: the workspace and the checkouts
// beside it.
type checkDirs struct {
	workspace   string
	seenAt      string // the workspace resolved, where the warm-up's go saw it
	baseDir     string
	resultDir   string // the checkout of the tree the result checks run on
	startCommit string
}

// checkBackground is the life of the background baselines.
type checkBackground struct {
	wg     sync.WaitGroup
	ctx    context.Context // the background baselines'; nil before background
	cancel context.CancelFunc
}

// checkBasePrep is the base checkout, made once, and its turns.
type checkBasePrep struct {
	prep     sync.Mutex // held while the base checkout is made
	running  sync.Mutex // held while a baseline runs: one at a time in the base checkout
	prepared bool
	prepErr  error
}

// baseRun is one check's baseline, started once.
type baseRun struct {
	done   chan struct{} // closed when res is set
	res    CheckResult
	failed bool // stopped by its context: run again when wanted
}

// NewChecker is the checker of the session whose workspace is a clone at
// startCommit: its checks run in sb at tier, each for timeout (and, while
// it compiles, up to ceiling), and git runs git for it.
func NewChecker(sb *sandbox.Sandbox, tier lang.Tier, timeout, ceiling time.Duration, git Git, workspace, startCommit string) *Checker {
	seenAt := workspace
	if real, err := filepath.EvalSymlinks(seenAt); err == nil {
		seenAt = real
	}
	return &Checker{
		checkRunner: checkRunner{sb: sb, tier: tier, timeout: timeout, ceiling: ceiling, git: git},
		checkDirs:   checkDirs{seenAt: seenAt, workspace: workspace, baseDir: workspace + ".base", resultDir: workspace + ".result", startCommit: startCommit},
		base:        map[string]*baseRun{},
	}
}

// Background starts the baselines of the checks known now, each in the
// background; Start starts those of checks found later the same way.
// Close stops them.
func (c *Checker) Background(ctx context.Context, checks []Check) {
	c.mu.Lock()
	if c.ctx == nil {
		c.ctx, c.cancel = context.WithCancel(ctx)
	}
	c.mu.Unlock()
	for _, ch := range checks {
		c.Start(ch.Command)
	}
}

// Start starts the baseline of a check in the background, unless it is
// known or under way, or the checker has no background (before
// background, after close).
func (c *Checker) Start(argv []string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	ctx := c.ctx
	c.mu.Unlock()
	if ctx == nil || ctx.Err() != nil {
		return
	}
	b, mine := c.claim(argv)
	if !mine {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.runBase(ctx, b, argv)
	}()
}

// claim returns the check's baseline, and true when the caller is to run
// it: none was started, or the last one was stopped.
func (c *Checker) claim(argv []string) (*baseRun, bool) {
	key := strings.Join(argv, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.base[key]; ok {
		select {
		case <-b.done:
			if !b.failed {
				return b, false
			}
		default:
			return b, false
		}
	}
	b := &baseRun{done: make(chan struct{})}
	c.base[key] = b
	return b, true
}

// runBase runs a claimed baseline and publishes its result.
func (c *Checker) runBase(ctx context.Context, b *baseRun, argv []string) {
	var r CheckResult
	if err := c.prepare(ctx); err != nil {
		r = CheckResult{Exit: -1, Error: err.Error()}
	} else {
		c.running.Lock()
		r = c.run(ctx, c.baseDir, argv)
		c.running.Unlock()
	}
	c.mu.Lock()
	b.res = r
	b.failed = ctx.Err() != nil && r.Error != "" // cancelled: not worth keeping
	c.mu.Unlock()
	close(b.done)
}

// Close stops the background baselines, waits for them and removes the
// base checkout (and the result's, left by a cancelled contract).
func (c *Checker) Close() {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
	_ = os.RemoveAll(c.baseDir)
	_ = os.RemoveAll(c.resultDir)
}

// Contract runs every check on tree, the workspace's tree frozen at done,
// checked out in a directory of its own, and compares it with its
// baseline. The baselines not yet known start at once, beside the results;
// those under way in the background are waited for, never run twice.
func (c *Checker) Contract(ctx context.Context, checks []Check, tree string) *Contract {
	bases := make([]func() CheckResult, len(checks))
	for i, ch := range checks {
		bases[i] = c.wanted(ctx, ch.Command)
	}
	runs := make([]CheckRun, 0, len(checks))
	if len(checks) > 0 {
		err := c.checkoutTree(ctx, tree)
		for _, ch := range checks {
			result := CheckResult{Exit: -1}
			if err != nil {
				result.Error = err.Error()
			} else {
				result = c.run(ctx, c.resultDir, ch.Command)
			}
			runs = append(runs, CheckRun{Command: ch.Command, Source: ch.Source, Result: result})
		}
		_ = os.RemoveAll(c.resultDir)
	}
	for i := range runs {
		runs[i].Baseline = bases[i]()
	}
	k := NewContract(runs, c.timeout)
	k.BuildCeilingSeconds = c.ceiling.Seconds()
	k.Tree = tree
	return k
}

// checkoutTree checks out exactly tree, from the workspace's git objects
// alone (never a copy of its files), into the result's directory: a clone
// of the workspace (objects hard-linked) whose index and files are set to
// the tree.
func (c *Checker) checkoutTree(ctx context.Context, tree string) error {
	if err := CheckoutTree(ctx, c.git, c.workspace, c.resultDir, tree); err != nil {
		return fmt.Errorf("check out the tree %s: %w", clip.Hash(tree), err)
	}
	return nil
}

// CheckoutTree makes dir a checkout of exactly treeish (a tree or a
// commit) from the git objects of the clone at from alone, never a copy of
// its files: a clone of it (objects hard-linked, nothing checked out)
// whose index and files are set to the tree. What was at dir is removed
// first.
func CheckoutTree(ctx context.Context, git Git, from, dir, treeish string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if _, err := git(ctx, "", "clone", "--quiet", "--no-checkout", "--", from, dir); err != nil {
		return err
	}
	_, err := git(ctx, dir, "read-tree", "--reset", "-u", treeish)
	return err
}

// wanted returns the function that waits for the check's baseline: the one
// known or under way, or one it starts now, in the foreground.
func (c *Checker) wanted(ctx context.Context, argv []string) func() CheckResult {
	b, mine := c.claim(argv)
	if mine {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.runBase(ctx, b, argv)
		}()
	}
	return func() CheckResult {
		select {
		case <-b.done:
		case <-ctx.Done():
			return CheckResult{Exit: -1, Error: "stopped: " + ctx.Err().Error()}
		}
		if b.failed && ctx.Err() == nil {
			// Stopped with the background (a resumed checker's close): run
			// it now.
			return c.wanted(ctx, argv)()
		}
		return b.res
	}
}

// prepare makes the base checkout once: a clone of the workspace (objects
// hard-linked, the model's changes left behind) at the start commit.
func (c *Checker) prepare(ctx context.Context) error {
	c.prep.Lock()
	defer c.prep.Unlock()
	if c.prepared {
		return c.prepErr
	}
	c.prepErr = c.checkout(ctx)
	c.prepared = c.prepErr == nil || ctx.Err() == nil
	return c.prepErr
}

func (c *Checker) checkout(ctx context.Context) error {
	if err := os.RemoveAll(c.baseDir); err != nil {
		return fmt.Errorf("check out the start commit: %w", err)
	}
	if _, err := c.git(ctx, "", "clone", "--quiet", "--no-checkout", "--", c.workspace, c.baseDir); err != nil {
		return fmt.Errorf("check out the start commit: %w", err)
	}
	if _, err := c.git(ctx, c.baseDir, "checkout", "--quiet", "--detach", c.startCommit); err != nil {
		return fmt.Errorf("check out the start commit %s: %w", clip.Hash(c.startCommit), err)
	}
	return nil
}

// run runs one check through the checker's Confinement in dir. A
// baseline runs at the priority of the model's commands, not in the
// background: done waits for it, and a command at the least priority on a
// busy machine may get no CPU time at all.
func (c *Checker) run(ctx context.Context, dir string, argv []string) CheckResult {
	// The start commit's checkout, and the result's, are seen where the
	// workspace is: their go commands then key each package's compile as
	// the warm-up's did, and find what the warm-up compiled in the
	// repository's shared layer (sandbox.RunOptions.MountAt). Their own run
	// layers stay their own.
	mountAt := ""
	if dir != c.workspace {
		mountAt = c.seenAt
	}
	return c.Confinement().Run(ctx, dir, mountAt, argv)
}

// Confinement is how the checker runs its checks: its sandbox, tier,
// timeout and ceiling, for the harness's other runs (a review's
// classification of the pull request's tests, its reproductions) to be
// confined as the checks are.
func (c *Checker) Confinement() Confinement {
	return Confinement{Sandbox: c.sb, Tier: c.tier, Timeout: c.timeout, Ceiling: c.ceiling}
}

// Confinement is how the harness runs a check: in which sandbox, at which
// tier, for how long (and, while it compiles, up to Ceiling).
type Confinement struct {
	Sandbox *sandbox.Sandbox
	Tier    lang.Tier
	Timeout time.Duration
	Ceiling time.Duration
	// Tell, when set, is told of each command Run ran (a review's
	// reproductions and its classification of the tests: the run's
	// command events), with its result, once it ended.
	Tell func(argv []string, r CheckResult)
}

// Run runs argv confined in dir, seen at mountAt when set, in a sandbox of
// its own (NoBox: nothing a session started is there). It never waits for
// the build's warm-up. A check whose ecosystem's manifest is not in dir,
// or whose toolchain is not on this machine, does not run: it could not
// apply, which is neither a pass nor a failure (Inapplicable).
func (c Confinement) Run(ctx context.Context, dir, mountAt string, argv []string) CheckResult {
	var na *lang.NotApplicable
	if err := c.Sandbox.Applies(ctx, dir, argv); errors.As(err, &na) {
		return CheckResult{Exit: -1, Error: na.Reason, Inapplicable: true}
	}
	r, err := c.Sandbox.Verify(ctx, c.Tier, argv, sandbox.RunOptions{Workspace: dir, MountAt: mountAt, Timeout: c.Timeout, BuildCeiling: c.Ceiling, OutputLimit: 4 << 10, NoBox: true})
	if err == nil && ctx.Err() != nil {
		err = CheckStopped{Err: ctx.Err()}
	}
	res := CheckResultOf(r, err, RepoModule(dir))
	if c.Tell != nil {
		c.Tell(argv, res)
	}
	return res
}

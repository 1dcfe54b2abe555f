package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session/tools"
)

// userChecks turns the --check texts into checks, refusing any the tier
// does not let run unattended: a check the harness cannot run confined
// holds nothing.
func userChecks(texts []string, tier sandbox.Tier) ([]Check, error) {
	var checks []Check
	for _, text := range texts {
		argv, err := sandbox.SplitCommand(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("--check: %w", err)
		}
		d := sandbox.Check(tier, argv)
		switch {
		case !d.Allowed():
			return nil, fmt.Errorf("--check %q: the verify tier %s does not let it run unattended (%s); raise the tier (--verify build or test) or drop the check", text, tier, d.Reason)
		case d.Network:
			return nil, fmt.Errorf("--check %q: it fetches modules on the host and may change go.mod; a check must only report (go build, go vet, go test, gofmt -l)", text)
		}
		checks = addCheck(checks, Check{Command: argv, Source: SourceUser})
	}
	return checks, nil
}

// modelCheck turns a verification command the model ran into a check, or
// reports false when the harness could not hold the result to it: the
// tier does not let it run unattended, or it is a go mod command, which
// changes go.mod rather than checking anything.
func modelCheck(v *tools.Verification, tier sandbox.Tier) (Check, bool) {
	argv, err := sandbox.SplitCommand(v.Command)
	if err != nil {
		return Check{}, false
	}
	if d := sandbox.Check(tier, argv); !d.Allowed() || d.Network {
		return Check{}, false
	}
	return Check{Command: argv, Source: SourceModel}, true
}

// checker runs a session's checks for its contract: baselines in a clean
// checkout of the start commit (its own directory, so that the workspace
// is never disturbed), results on the workspace. Baselines of the checks
// known when the turns start run in the background meanwhile; the rest run
// when the results are wanted.
type checker struct {
	sb          *sandbox.Sandbox
	tier        sandbox.Tier
	timeout     time.Duration
	git         gitRunner
	workspace   string
	baseDir     string
	startCommit string

	wg     sync.WaitGroup
	cancel context.CancelFunc

	mu       sync.Mutex
	prepared bool
	prepErr  error
	base     map[string]CheckResult
}

func newChecker(s *run) *checker {
	return &checker{
		sb: s.opts.Sandbox, tier: s.rec.Verify, timeout: s.opts.ShellTimeout, git: s.git,
		workspace: s.rec.Workspace, baseDir: s.rec.Workspace + ".base", startCommit: s.rec.StartCommit,
		base: map[string]CheckResult{},
	}
}

// background starts the baselines of checks in a goroutine. close stops
// and waits for it.
func (c *checker) background(ctx context.Context, checks []Check) {
	if len(checks) == 0 {
		return
	}
	checks = slices.Clone(checks) // the turns add to the session's own
	ctx, c.cancel = context.WithCancel(ctx)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for _, ch := range checks {
			if ctx.Err() != nil {
				return
			}
			c.baseline(ctx, ch.Command)
		}
	}()
}

// close stops the background baselines, waits for them and removes the
// base checkout.
func (c *checker) close() {
	if c.cancel != nil {
		c.cancel()
	}
	c.wg.Wait()
	_ = os.RemoveAll(c.baseDir)
}

// contract runs every check on the final tree and compares it with its
// baseline, running the baselines not yet known first.
func (c *checker) contract(ctx context.Context, checks []Check) *Contract {
	c.wg.Wait() // a baseline under way in the background is not run twice
	runs := make([]CheckRun, 0, len(checks))
	for _, ch := range checks {
		base := c.baseline(ctx, ch.Command)
		result := c.run(ctx, c.workspace, ch.Command)
		runs = append(runs, CheckRun{Command: ch.Command, Source: ch.Source, Baseline: base, Result: result})
	}
	return NewContract(runs, c.timeout)
}

// baseline returns the check's result on the start commit, running it
// once.
func (c *checker) baseline(ctx context.Context, argv []string) CheckResult {
	key := strings.Join(argv, "\x00")
	c.mu.Lock()
	r, ok := c.base[key]
	c.mu.Unlock()
	if ok {
		return r
	}
	if err := c.prepare(ctx); err != nil {
		r = CheckResult{Exit: -1, Error: err.Error()}
	} else {
		r = c.run(ctx, c.baseDir, argv)
	}
	if ctx.Err() != nil && r.Error != "" {
		return r // cancelled: not worth keeping
	}
	c.mu.Lock()
	c.base[key] = r
	c.mu.Unlock()
	return r
}

// prepare makes the base checkout once: a clone of the workspace (objects
// hard-linked, the model's changes left behind) at the start commit.
func (c *checker) prepare(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prepared {
		return c.prepErr
	}
	c.prepErr = c.checkout(ctx)
	c.prepared = c.prepErr == nil || ctx.Err() == nil
	return c.prepErr
}

func (c *checker) checkout(ctx context.Context) error {
	if err := os.RemoveAll(c.baseDir); err != nil {
		return fmt.Errorf("check out the start commit: %w", err)
	}
	if _, err := c.git.run(ctx, "", "clone", "--quiet", "--no-checkout", "--", c.workspace, c.baseDir); err != nil {
		return fmt.Errorf("check out the start commit: %w", err)
	}
	if _, err := c.git.run(ctx, c.baseDir, "checkout", "--quiet", "--detach", c.startCommit); err != nil {
		return fmt.Errorf("check out the start commit %s: %w", short(c.startCommit), err)
	}
	return nil
}

// run runs one check, confined, in dir. A go check first waits for the
// workspace's build warm-up, in the base checkout too (it compiles much the
// same), and its timeout counts only after the wait.
//
// A check whose ecosystem's manifest is not in dir, or whose toolchain is
// not on this machine, does not run: it could not apply, which is neither
// a pass nor a failure (NotApplicable).
func (c *checker) run(ctx context.Context, dir string, argv []string) CheckResult {
	var na *sandbox.NotApplicable
	if err := c.sb.Applies(ctx, dir, argv); errors.As(err, &na) {
		return CheckResult{Exit: -1, Error: na.Reason, Inapplicable: true}
	}
	var waited time.Duration
	if len(argv) > 0 && argv[0] == "go" {
		waited, _ = c.sb.WaitWarm(ctx, c.workspace) // ctx's end shows below
	}
	r, err := c.sb.Verify(ctx, c.tier, argv, sandbox.RunOptions{Workspace: dir, Timeout: c.timeout, OutputLimit: 4 << 10})
	res := CheckResult{Exit: r.ExitCode, TimedOut: r.TimedOut, Seconds: r.Duration.Seconds(), Sandboxed: r.Sandboxed,
		WaitedSeconds: (waited + r.Waited).Seconds()}
	var refused *sandbox.RefusedError
	switch {
	case errors.As(err, &refused):
		res.Exit, res.Error = -1, refused.Reason
	case err != nil:
		res.Exit, res.Error = -1, err.Error()
	case ctx.Err() != nil:
		res.Exit, res.Error = -1, "stopped: "+ctx.Err().Error()
	}
	res.Passed = res.Error == "" && !res.TimedOut && res.Exit == 0
	return res
}

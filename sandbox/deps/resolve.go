package deps

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/manifest"
)

// Dependencies without a lockfile (a library's package.json with
// package-lock=false, a Cargo.toml without Cargo.lock, a pyproject.toml's
// ranges): core resolves the lockfile from the manifest first, in a step of
// its own like the fetch (Steps.Fetch: a scratch directory holding copies of
// the manifest only, confined, the network only through core's proxy to the
// registries), in a form that runs no code of anyone's: npm install
// --package-lock-only --ignore-scripts, cargo generate-lockfile, pip
// install --dry-run --report wheels only (sandbox/manifest/pipreport.go).
// What it resolved then goes through the same checks and the same fetch as
// a lockfile the repository committed.
//
// The resolved lockfile is the run's: kept by Steps, never written
// into the workspace (it is not in the diff), by the manifest and where the
// commands see the workspace (the baseline's and the result's checkouts
// are seen at the workspace's own path), so the start commit's checks and
// the result's install the same versions even when a registry publishes a
// newer one in between. A manifest the change edited (a dependency added)
// is resolved again from what the run resolved last (seeded): npm and
// cargo keep every locked version the manifest still allows, pip takes
// the earlier versions as constraints (and, when they conflict with the
// change, resolves without them).

// resolvedLock is one manifest's lockfile as the run resolved it.
type resolvedLock struct {
	turn chan struct{} // held while it is resolved: one step at a time
	lock []byte        // nil until resolved
}

// maxResolvedLockSize bounds what core reads of a lockfile a step wrote.
const maxResolvedLockSize = 64 << 20

// resolveLock runs plan, a resolving step, once per run and manifest,
// and returns the lockfile it resolved; or nil with what to tell when it
// failed.
func (st *Steps) resolveLock(ctx context.Context, r Runner, plan Plan, req Request) ([]byte, View, error) {
	key := ResolveKey(plan, req.Inside)
	got, _ := st.resolved.LoadOrStore(key, &resolvedLock{turn: make(chan struct{}, 1)})
	rl := got.(*resolvedLock)
	select {
	case rl.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, View{}, fmt.Errorf("wait for the resolution of the %s dependencies under way: %w", EcoName(plan.Eco), ctx.Err())
	}
	defer func() { <-rl.turn }()
	if rl.lock != nil {
		return rl.lock, View{}, nil
	}
	if failed, ok := st.failed.Load(key); ok {
		return nil, failed.(View), nil // this process tried: once is enough
	}
	lineage := ResolveLineage(plan, req.Inside)
	plan.Egress = &egress.Log{}
	start := time.Now()
	req.progressf("Resolving the %s dependencies: there is no lockfile (%s) …", EcoName(plan.Eco), strings.Join(plan.Argv, " "))
	var raw []byte
	var res stepResult
	var err error
	if last, ok := st.lastResolved.Load(lineage); ok {
		// The manifest changed since the run resolved it: the versions it
		// resolved then stay where the change allows.
		raw, res, err = resolveIn(ctx, r, Seeded(plan, last.([]byte)))
		if err == nil && res.exit != 0 && FindUnreachable(plan.Eco, plan.Egress, plan.Hosts, res.output) == nil {
			raw, res, err = resolveIn(ctx, r, plan)
		}
	} else {
		raw, res, err = resolveIn(ctx, r, plan)
	}
	if err != nil {
		return nil, View{}, err
	}
	if res.exit != 0 {
		return nil, st.stepFailed(ctx, key, plan, res.output), nil
	}
	lock, err := raw, error(nil)
	if plan.Resolved != nil {
		lock, err = plan.Resolved(raw)
	}
	if err != nil {
		v := View{Note: plan.Failed(fmt.Sprintf("core could not read the %s the step resolved: %v", plan.Resolves, err))}
		st.failed.Store(key, v)
		return nil, v, nil
	}
	rl.lock = lock
	st.lastResolved.Store(lineage, lock)
	req.progressf("Resolved %s in %s, kept for this run's checks on both sides.", PackagesWord(plan.Eco, LockPackages(plan.Eco, lock)), RoundDuration(time.Since(start)))
	return lock, View{}, nil
}

// stepResult is how a step ended: its exit code and output.
type stepResult struct {
	exit   int
	output string
}

// resolveIn runs the resolving step plan in a scratch directory of its
// own and returns what it wrote at plan.Resolves (nil when the step
// failed: stepResult says how).
func resolveIn(ctx context.Context, r Runner, plan Plan) ([]byte, stepResult, error) {
	scratch, err := r.Scratch(plan.Files)
	if err != nil {
		return nil, stepResult{}, err
	}
	defer os.RemoveAll(scratch)
	var res stepResult
	res.exit, res.output, err = r.Step(ctx, plan, scratch)
	if err != nil {
		return nil, res, fmt.Errorf("%s: %w", strings.Join(plan.Argv, " "), err)
	}
	if res.exit != 0 {
		return nil, res, nil
	}
	raw, err := manifest.ReadWorkspaceFile(scratch, plan.Resolves, maxResolvedLockSize)
	if err != nil {
		res.exit = 1
		res.output = fmt.Sprintf("core could not read the %s the step resolved: %v\n", plan.Resolves, err) + res.output
		return nil, res, nil
	}
	return raw, res, nil
}

// stepFailed is what a failed step of plan says, kept by key unless ctx
// ended it: an unreachable registry named as such (unreach.go), else
// the step's own words.
func (st *Steps) stepFailed(ctx context.Context, key string, plan Plan, output string) View {
	v := View{Note: plan.Failed(output)}
	if u := FindUnreachable(plan.Eco, plan.Egress, plan.Hosts, output); u != nil {
		v = View{Note: UnreachableNote(u, output), Err: u}
	}
	if ctx.Err() == nil {
		st.failed.Store(key, v)
	}
	return v
}

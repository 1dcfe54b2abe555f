package sandbox

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/manifest"
)

// Dependencies without a lockfile (a library's package.json with
// package-lock=false, a Cargo.toml without Cargo.lock, a pyproject.toml's
// ranges): core resolves the lockfile from the manifest first, in a step
// of its own like the fetch (deps.go: a scratch directory holding copies
// of the manifest only, confined, the network only through core's proxy to
// the registries), in a form that runs no code of anyone's: npm install
// --package-lock-only --ignore-scripts, cargo generate-lockfile, pip
// install --dry-run --report wheels only (pipreport.go). What it resolved
// then goes through the same checks and the same fetch as a lockfile the
// repository committed.
//
// The resolved lockfile is the run's: kept by this Sandbox, never written
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

// resolveKey keys what plan resolves for the workspace seen at inside.
func resolveKey(plan depsPlan, inside string) string {
	return filesKey(map[string][]byte{"lineage": []byte(resolveLineage(plan, inside)), "files": []byte(filesKey(plan.files))})
}

// resolveLineage keys a run's resolutions of one ecosystem, whatever its
// manifest says: the last one seeds the next.
func resolveLineage(plan depsPlan, inside string) string {
	return filesKey(map[string][]byte{
		"eco": []byte(plan.eco), "inside": []byte(inside),
		"argv": []byte(strings.Join(plan.argv, "\x00")), "env": []byte(strings.Join(plan.env, "\x00")),
		"hosts": []byte(strings.Join(plan.hosts, "\x00")),
	})
}

// seeded is plan resolving from lock, what the run resolved last for
// another manifest: npm's and cargo's lockfile beside the manifest (cargo
// update --workspace then changes only what the manifest's change needs),
// pip's pins as constraints.
func seeded(plan depsPlan, lock []byte) depsPlan {
	files := make(map[string][]byte, len(plan.files)+1)
	for k, v := range plan.files {
		files[k] = v
	}
	plan.files = files
	switch plan.eco {
	case "node":
		files["package-lock.json"] = lock
	case "rust":
		files["Cargo.lock"] = lock
		plan.argv = []string{"cargo", "update", "--workspace"}
	case "python":
		files[constraintsFile] = lock
		plan.argv = append(slices.Clone(plan.argv), "-c", constraintsFile)
	}
	return plan
}

// resolveLock runs plan, a resolving step, once per run and manifest,
// and returns the lockfile it resolved; or nil with what to tell when it
// failed.
func (s *Sandbox) resolveLock(ctx context.Context, b backend, bwrap string, plan depsPlan, opts RunOptions) ([]byte, depsView, error) {
	key := resolveKey(plan, opts.inside())
	got, _ := s.resolved.LoadOrStore(key, &resolvedLock{turn: make(chan struct{}, 1)})
	rl := got.(*resolvedLock)
	select {
	case rl.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, depsView{}, fmt.Errorf("wait for the resolution of the %s dependencies under way: %w", ecoName(plan.eco), ctx.Err())
	}
	defer func() { <-rl.turn }()
	if rl.lock != nil {
		return rl.lock, depsView{}, nil
	}
	if failed, ok := s.depsFailed.Load(key); ok {
		return nil, failed.(depsView), nil // this process tried: once is enough
	}
	lineage := resolveLineage(plan, opts.inside())
	plan.egress = &egress.Log{}
	start := time.Now()
	progressf(opts, "Resolving the %s dependencies: there is no lockfile (%s) …", ecoName(plan.eco), strings.Join(plan.argv, " "))
	var raw []byte
	var r Result
	var err error
	if last, ok := s.lastResolved.Load(lineage); ok {
		// The manifest changed since the run resolved it: the versions it
		// resolved then stay where the change allows.
		raw, r, err = s.resolveIn(ctx, b, bwrap, seeded(plan, last.([]byte)))
		if err == nil && r.ExitCode != 0 && depsUnreachable(plan.eco, plan.egress, plan.hosts, r.Output) == nil {
			raw, r, err = s.resolveIn(ctx, b, bwrap, plan)
		}
	} else {
		raw, r, err = s.resolveIn(ctx, b, bwrap, plan)
	}
	if err != nil {
		return nil, depsView{}, err
	}
	if r.ExitCode != 0 {
		return nil, s.stepFailed(ctx, key, plan, r.Output), nil
	}
	lock, err := raw, error(nil)
	if plan.resolved != nil {
		lock, err = plan.resolved(raw)
	}
	if err != nil {
		v := depsView{note: plan.failed(fmt.Sprintf("core could not read the %s the step resolved: %v", plan.resolves, err))}
		s.depsFailed.Store(key, v)
		return nil, v, nil
	}
	rl.lock = lock
	s.lastResolved.Store(lineage, lock)
	progressf(opts, "Resolved %s in %s, kept for this run's checks on both sides.", packagesWord(plan.eco, lockPackages(plan.eco, lock)), roundDuration(time.Since(start)))
	return lock, depsView{}, nil
}

// resolveIn runs the resolving step plan in a scratch directory of its
// own and returns what it wrote at plan.resolves (nil when the step
// failed: Result says how).
func (s *Sandbox) resolveIn(ctx context.Context, b backend, bwrap string, plan depsPlan) ([]byte, Result, error) {
	scratch, err := s.scratch(plan.files)
	if err != nil {
		return nil, Result{}, err
	}
	defer os.RemoveAll(scratch)
	r, err := s.depsStep(ctx, b, bwrap, plan, scratch)
	if err != nil {
		return nil, r, fmt.Errorf("%s: %w", strings.Join(plan.argv, " "), err)
	}
	if r.ExitCode != 0 {
		return nil, r, nil
	}
	raw, err := manifest.ReadWorkspaceFile(scratch, plan.resolves, maxResolvedLockSize)
	if err != nil {
		r.ExitCode = 1
		r.Output = fmt.Sprintf("core could not read the %s the step resolved: %v\n", plan.resolves, err) + r.Output
		return nil, r, nil
	}
	return raw, r, nil
}

// stepFailed is what a failed step of plan says, kept by key unless ctx
// ended it: an unreachable registry named as such (depsunreach.go), else
// the step's own words.
func (s *Sandbox) stepFailed(ctx context.Context, key string, plan depsPlan, output string) depsView {
	v := depsView{note: plan.failed(output)}
	if u := depsUnreachable(plan.eco, plan.egress, plan.hosts, output); u != nil {
		v = depsView{note: unreachableNote(u, output), err: u}
	}
	if ctx.Err() == nil {
		s.depsFailed.Store(key, v)
	}
	return v
}

// planCargoResolve is the step that resolves Cargo.lock from Cargo.toml
// alone: cargo generate-lockfile reads the registries' indexes and builds
// nothing (no build script runs). A git source or an index named by URL
// refuses it before anything is fetched, as it refuses a committed
// Cargo.lock.
func planCargoResolve(named []string, cargoToml []byte) (depsPlan, string, bool, error) {
	if problems := manifest.CargoLockProblems(cargoToml, nil, manifest.CargoSources(named)); len(problems) > 0 {
		return depsPlan{}, manifest.CargoProblemsNote(problems), false, nil
	}
	return depsPlan{
		eco: "rust", tool: "cargo", resolves: "Cargo.lock",
		files: map[string][]byte{"Cargo.toml": cargoToml, "src/lib.rs": {}, "src/main.rs": []byte("fn main() {}\n")},
		argv:  []string{"cargo", "generate-lockfile"},
		env:   append([]string{"CARGO_HOME=/tmp/cargo", "CARGO_TERM_COLOR=never"}, named...),
		failed: func(out string) string {
			return "core fetched no dependencies: there is no Cargo.lock, and cargo generate-lockfile (run by core, confined, with the network) could not resolve one from Cargo.toml; the command runs without the dependencies:\n" + out
		},
	}, "", true, nil
}

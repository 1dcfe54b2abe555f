package session

import (
	"context"
	"path"
	"strings"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/land"
)

// failures are the checks that failed on the result (regressed, failing,
// timed out), each with the end of its output and a file of the checked
// tree for the check run's annotation to sit on.
func (s *run) failures(ctx context.Context) []land.Failure {
	c := s.report.Contract
	if c == nil {
		return nil
	}
	var out []land.Failure
	touched := ""
	for _, r := range c.Checks {
		switch r.Verdict {
		case contract.VerdictRegressed, contract.VerdictFailing, contract.VerdictTimedOut:
		default:
			continue
		}
		p := s.manifestIn(ctx, r.Command)
		if p == "" {
			if touched == "" {
				touched = s.firstTouched(ctx)
			}
			p = touched
		}
		out = append(out, land.Failure{Check: r.String(), Verdict: string(r.Verdict), Output: r.Result.Output, Path: p})
	}
	return out
}

// manifestIn is the manifest of the check's ecosystem at the checked
// tree's top ("go.mod" for go test), or "". It reads the tree object,
// never the workspace.
func (s *run) manifestIn(ctx context.Context, argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	eco, ok := lang.EcosystemOf(path.Base(argv[0]))
	if !ok {
		return ""
	}
	for _, m := range eco.Manifests {
		if strings.ContainsAny(m, "*?[") {
			continue
		}
		if _, err := s.git.run(ctx, s.rec.Workspace, "cat-file", "-e", s.tree+":"+m); err == nil {
			return m
		}
	}
	return ""
}

// firstTouched is the first file the change touched that the checked
// tree holds, or "".
func (s *run) firstTouched(ctx context.Context) string {
	out, err := s.git.run(ctx, s.rec.Workspace, "diff-tree", "-r", "--no-renames", "--diff-filter=AMT", "--name-only", "-z", s.report.StartTree, s.tree)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(out, "\x00")
	return first
}

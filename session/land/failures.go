package land

import (
	"context"
	"path"
	"strings"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/contract"
)

// Failures are the checks of c that failed on the result (regressed,
// failing, timed out), each with the end of its output and a file of the
// checked tree for the check run's annotation to sit on: the check's
// ecosystem manifest, else the first file the change touched since
// startTree. It reads the workspace ws's git objects, never its files.
func Failures(ctx context.Context, g Git, ws, startTree, tree string, c *contract.Contract) []Failure {
	if c == nil {
		return nil
	}
	var out []Failure
	touched := ""
	for _, r := range c.Checks {
		switch r.Verdict {
		case contract.VerdictRegressed, contract.VerdictFailing, contract.VerdictTimedOut:
		default:
			continue
		}
		p := manifestIn(ctx, g, ws, tree, r.Command)
		if p == "" {
			if touched == "" {
				touched = firstTouched(ctx, g, ws, startTree, tree)
			}
			p = touched
		}
		out = append(out, Failure{Check: r.String(), Verdict: string(r.Verdict), Output: r.Result.Output, Path: p})
	}
	return out
}

// manifestIn is the manifest of the check's ecosystem at the checked
// tree's top ("go.mod" for go test), or "". It reads the tree object,
// never the workspace.
func manifestIn(ctx context.Context, g Git, ws, tree string, argv []string) string {
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
		if _, err := g(ctx, nil, ws, "", "cat-file", "-e", tree+":"+m); err == nil {
			return m
		}
	}
	return ""
}

// firstTouched is the first file the change touched that the checked
// tree holds, or "".
func firstTouched(ctx context.Context, g Git, ws, startTree, tree string) string {
	out, err := g(ctx, nil, ws, "", "diff-tree", "-r", "--no-renames", "--diff-filter=AMT", "--name-only", "-z", startTree, tree)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(out, "\x00")
	return first
}

package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/contract"
)

// Languages is what a run found of its workspace's ecosystems and what its
// verify tier runs unattended there: the same list the model is told.
type Languages struct {
	// Found names the ecosystems whose manifests are at the workspace's
	// top: go, python, node, rust, flutter.
	Found []string `json:"found"`
	// Inferred are those of Found whose manifest is not there, found
	// from what is (Python from its test_*.py files).
	Inferred []string `json:"inferred,omitempty"`
	// Allowed are the commands the tier runs unattended there, as the
	// prompt words them ("pytest", "npm run lint|test").
	Allowed []string `json:"allowed,omitempty"`
	// Missing says, for each ecosystem found whose toolchain this machine
	// lacks, what to install ("no cargo on PATH: install Debian's cargo").
	Missing []string `json:"missing,omitempty"`
	// CI are the commands of the repository's workflows, taken as checks
	// or not and why, with --checks-from-ci; nil without.
	CI *lang.CIChecks `json:"ci,omitempty"`
}

// detectLanguages reads the workspace's ecosystems, says them with what
// the tier allows there and which toolchain is missing, and keeps them for
// the prompt and the report. A workspace core cannot read says nothing of
// itself: the prompt then names every ecosystem's commands.
func (s *run) detectLanguages(ctx context.Context) {
	p, err := lang.Detect(s.rec.Workspace, deps.PythonFetches)
	if err != nil {
		fmt.Fprintf(s.opts.Live.Progress, "languages: not known (%v)\n", err)
		return
	}
	s.opts.Services.Sandbox.Locate(ctx, &p)
	s.project = &p
	l := &Languages{Found: p.Ecosystems, Inferred: p.Inferred, Missing: s.opts.Services.Sandbox.Missing(ctx, p)}
	for _, a := range lang.AllowedIn(s.rec.Verify, s.project) {
		l.Allowed = append(l.Allowed, a.Command)
	}
	s.report.Languages = l
	fmt.Fprintln(s.opts.Live.Progress, languagesLine(s.rec.Verify, l))
	for _, m := range l.Missing {
		fmt.Fprintf(s.opts.Live.Progress, "pre-flight: %s\n", m)
	}
	if s.opts.Verification.ChecksFromCI {
		s.checksFromCI(l)
	}
}

// checksFromCI takes the checks the repository's workflows run, adds them
// to the session's, and says which commands were taken and which not, and
// why.
func (s *run) checksFromCI(l *Languages) {
	ci, err := lang.ChecksFromCI(s.rec.Workspace, s.rec.Verify, s.project)
	if err != nil {
		fmt.Fprintf(s.opts.Live.Progress, "checks from CI: none (%v)\n", err)
		return
	}
	l.CI = &ci
	if len(ci.Taken) == 0 && len(ci.Skipped) == 0 {
		fmt.Fprintln(s.opts.Live.Progress, "checks from CI: none (no run: steps in .github/workflows)")
		return
	}
	for _, st := range ci.Taken {
		s.rec.Checks = contract.AddCheck(s.rec.Checks, contract.Check{Command: st.Argv, Source: contract.SourceCI})
		if st.As != "" {
			fmt.Fprintf(s.opts.Live.Progress, "checks from CI: taken %q as %q (%s): the toolchain has no %s\n", st.Command, st.As, st, strings.Fields(st.Command)[0])
			continue
		}
		fmt.Fprintf(s.opts.Live.Progress, "checks from CI: taken %q (%s)\n", st.Command, st)
	}
	for _, st := range ci.Skipped {
		where := st.File
		if st.Job != "" {
			where = st.String()
		}
		if st.Command == "" {
			fmt.Fprintf(s.opts.Live.Progress, "checks from CI: not taken %s: %s\n", where, st.Reason)
			continue
		}
		fmt.Fprintf(s.opts.Live.Progress, "checks from CI: not taken %q (%s): %s\n", st.Command, where, st.Reason)
	}
}

// languagesLine says, in a line, what the run found and what the tier runs
// unattended there.
func languagesLine(tier lang.Tier, l *Languages) string {
	found := "none found at the top of the repository"
	if len(l.Found) > 0 {
		var names []string
		for _, f := range l.Found {
			if slices.Contains(l.Inferred, f) {
				f += " (no manifest: from its tests)"
			}
			names = append(names, f)
		}
		found = strings.Join(names, ", ")
	}
	switch {
	case tier != lang.TierBuild && tier != lang.TierTest:
		return fmt.Sprintf("languages: %s; --verify off: every command goes to the approval gate", found)
	case len(l.Allowed) == 0:
		return fmt.Sprintf("languages: %s; --verify %s runs nothing there unattended (their commands run workspace code: --verify test)", found, tier)
	}
	return fmt.Sprintf("languages: %s; --verify %s runs unattended: %s", found, tier, strings.Join(l.Allowed, ", "))
}

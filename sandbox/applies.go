package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
)

// Applies reports whether argv can apply to the tree at ws: the manifest of
// its ecosystem is at the top, and its program is on this machine. The
// error is a *NotApplicable that says why not and what to do.
func (s *Sandbox) Applies(ctx context.Context, ws string, argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	e, ok := lang.EcosystemOf(argv[0])
	if !ok {
		return nil
	}
	p, err := lang.Detect(ws, deps.PythonFetches)
	if err != nil {
		return err
	}
	if !p.Has(e.Name) && !slices.Contains(e.Standalone, argv[0]) {
		what := strings.Join(e.Manifests, " or ")
		if e.Inferred != "" {
			what += " or " + e.Inferred
		}
		return &lang.NotApplicable{Reason: fmt.Sprintf("no %s: %s does not apply here", what, strings.Join(argv[:min(2, len(argv))], " "))}
	}
	t, looked := s.toolchainOf(ctx, e)
	if !looked {
		return nil // core's own image
	}
	// The toolchain's programs, as the pre-flight found them: the
	// command's own and the runner it runs.
	missing := t.missing(e, p)
	needs := []string{argv[0]}
	if r := runnerOf(argv); r != "" {
		needs = append(needs, r)
	}
	if line := t.line(e, p); line != "" && (missing == nil || slices.ContainsFunc(needs, func(n string) bool { return slices.Contains(missing, n) })) {
		return &lang.NotApplicable{Reason: line}
	}
	if instead, ok := e.Optional[argv[0]]; ok && !t.has[argv[0]] {
		return &lang.NotApplicable{Reason: lang.OptionalAbsent(argv, instead, t.where)}
	}
	if t.where == "" && !slices.Contains(e.Required, argv[0]) {
		// A program of its own (gofmt): on this machine's PATH.
		if _, err := s.findTool(argv[0]); err != nil {
			return &lang.NotApplicable{Reason: fmt.Sprintf("no %s on PATH: %s", argv[0], e.Toolchain)}
		}
	}
	return nil
}

// Missing lists, for the project's ecosystems, the toolchains the
// commands would lack: one line each, for the pre-flight ("no cargo on
// PATH: install Debian's cargo"). Under the Docker backend they are the
// toolchain image's, which a sibling without the network looks into (and
// which the engine pulls, the first time); an ecosystem without a
// toolchain image runs in core's own.
func (s *Sandbox) Missing(ctx context.Context, p lang.Project) []string {
	var out []string
	for _, e := range lang.Ecosystems() {
		if !p.Has(e.Name) {
			continue
		}
		if t, looked := s.toolchainOf(ctx, e); looked {
			if line := t.line(e, p); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}

// docker is the Docker backend when the probe chose it.
func (s *Sandbox) docker(ctx context.Context) *dockerBackend {
	if !s.viaDocker.Load() {
		return nil
	}
	pr := s.Probe(ctx)
	if !pr.Usable {
		return nil
	}
	d, _ := pr.chosen().(*dockerBackend)
	return d
}

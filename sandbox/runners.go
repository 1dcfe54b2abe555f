package sandbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
)

// The test runners an ecosystem's dependency step fetches when the
// toolchain lacks them: pytest, which pip fetches as wheels. The official
// python images carry pip and no pytest, and most repositories name pytest
// in no file the step reads (a requirements-dev.txt, tox.ini): without
// this, the Action's default Python image could verify none of them.
// pytest and what it needs are pure-Python wheels: fetching them builds
// and runs nothing, of the workspace or of the packages, and they are kept
// with the other dependencies (by the image, and the files the step read).
// A toolchain without pip lacks the runner: the pre-flight says so, and
// how to get it.

// toolchainPrograms are the programs of e looked for in its toolchain:
// the required ones, the fetchers of its runners, and the optional ones.
func toolchainPrograms(e lang.Ecosystem) []string {
	out := slices.Clone(e.Required)
	for _, r := range slices.Sorted(maps.Keys(e.Runners)) {
		if f := e.Runners[r]; !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, o := range slices.Sorted(maps.Keys(e.Optional)) {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// runnerOf is the test runner argv runs (pytest, python3 -m pytest), or
// "".
func runnerOf(argv []string) string {
	switch {
	case len(argv) >= 1 && argv[0] == "pytest":
		return "pytest"
	case len(argv) >= 3 && (argv[0] == "python3" || argv[0] == "python") && argv[1] == "-m" && argv[2] == "pytest":
		return "pytest"
	}
	return ""
}

// toolchain is what core found of an ecosystem's toolchain where its
// commands run.
type toolchain struct {
	// where is the toolchain image's reference, or "" for the host's PATH.
	where string
	has   map[string]bool
	// err says why the toolchain image could not be had.
	err error
}

// toolchainOf looks for e's programs where e's commands run: in its
// toolchain image under the Docker backend (false when they run in core's
// own image, where nothing is looked for), on the host's PATH otherwise.
func (s *Sandbox) toolchainOf(ctx context.Context, e lang.Ecosystem) (toolchain, bool) {
	if d := s.docker(ctx); d != nil {
		if d.s.cfg.ToolchainImages[e.Name] == "" {
			return toolchain{}, false
		}
		ref, has, err := d.has(ctx, e)
		return toolchain{where: ref, has: has, err: err}, true
	} else if s.viaDocker.Load() {
		return toolchain{}, false
	}
	t := toolchain{has: map[string]bool{}}
	for _, prog := range toolchainPrograms(e) {
		if _, err := s.findTool(prog); err == nil {
			t.has[prog] = true
		}
	}
	return t, true
}

// added are the runners of e the dependency step fetches because the
// toolchain lacks them and has their fetcher, for a project whose
// manifests do not name them (those the step fetches anyway).
func (t toolchain) added(e lang.Ecosystem, p lang.Project) []string {
	var out []string
	for _, r := range slices.Sorted(maps.Keys(e.Runners)) {
		if !t.has[r] && t.has[e.Runners[r]] && !slices.Contains(p.Fetches(), r) {
			out = append(out, r)
		}
	}
	return out
}

// missing lists what the toolchain lacks of e.Required, less the runners
// the dependency step fetches; nil when the toolchain image could not be
// had at all.
func (t toolchain) missing(e lang.Ecosystem, p lang.Project) []string {
	if t.err != nil {
		return nil
	}
	fetched := append(t.added(e, p), p.Fetches()...)
	out := []string{}
	for _, prog := range e.Required {
		if !t.has[prog] && !slices.Contains(fetched, prog) {
			out = append(out, prog)
		}
	}
	return out
}

// line says what the toolchain lacks and how to get it, for the
// pre-flight and for a check that cannot apply; "" when it lacks nothing.
func (t toolchain) line(e lang.Ecosystem, p lang.Project) string {
	if t.err != nil {
		return fmt.Sprintf("no toolchain image for %s: %v (name one that the engine can pull in toolchain_images, CORE_SANDBOX_TOOLCHAIN_IMAGES)", e.Name, t.err)
	}
	missing := t.missing(e, p)
	if len(missing) == 0 {
		return ""
	}
	var line string
	if t.where == "" {
		line = fmt.Sprintf("no %s on PATH: %s", strings.Join(missing, ", "), e.Toolchain)
	} else {
		line = fmt.Sprintf("no %s in the toolchain image %s: name an image with %s in toolchain_images (CORE_SANDBOX_TOOLCHAIN_IMAGES), e.g. docker/toolchain.Dockerfile built with %s",
			strings.Join(missing, ", "), t.where, strings.Join(e.Required, " and "), e.Packages)
	}
	for _, r := range missing {
		if f, ok := e.Runners[r]; ok && t.where == "" {
			line += fmt.Sprintf("; or install %s: core then fetches %s itself, wheels only", f, r)
		} else if ok {
			line += fmt.Sprintf("; or one with %s: core then fetches %s itself, wheels only", f, r)
		}
	}
	return line
}

// lackedRunners are the runners argv runs that the toolchain lacks and
// the dependency step therefore fetches for the workspace ws.
func (s *Sandbox) lackedRunners(ctx context.Context, argv []string, ws string) []string {
	r := runnerOf(argv)
	e, ok := lang.EcosystemOf(argv[0])
	if r == "" || !ok {
		return nil
	}
	p, err := lang.Detect(ws, deps.PythonFetches)
	if err != nil {
		return nil
	}
	if t, looked := s.toolchainOf(ctx, e); looked && slices.Contains(t.added(e, p), r) {
		return []string{r}
	}
	return nil
}

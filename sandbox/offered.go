package sandbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The command names offered to the model are those the toolchain has:
// python3 -m pytest everywhere, python -m pytest only where there is a
// python (Debian has only python3). A command that starts with an
// optional program the toolchain lacks is still safe to run; it is just
// not offered, and when the model or a CI workflow runs it anyway, the
// check says to run the other program instead, not to install packages
// that are there.

// Locate records in p which optional programs of its ecosystems (the
// Optional of Ecosystems) the toolchain lacks where their commands run:
// on this machine's PATH, or in the toolchain image under the Docker
// backend. AllowedIn then offers no command that starts with one. Where
// nothing is looked for (core's own image), nothing is recorded.
func (s *Sandbox) Locate(ctx context.Context, p *Project) {
	p.absent = nil
	for _, e := range Ecosystems() {
		if !p.Has(e.Name) || len(e.Optional) == 0 {
			continue
		}
		t, looked := s.toolchainOf(ctx, e)
		if !looked || t.err != nil {
			continue
		}
		p.absent = append(p.absent, lacking(e, t.has)...)
	}
}

// lacking are the optional programs of e that has does not hold, sorted.
func lacking(e Ecosystem, has map[string]bool) []string {
	var out []string
	for _, o := range slices.Sorted(maps.Keys(e.Optional)) {
		if !has[o] {
			out = append(out, o)
		}
	}
	return out
}

// offered reports whether an allowance may be offered in project p: its
// program is not one Locate found absent.
func offered(a Allowance, p *Project) bool {
	if p == nil {
		return true
	}
	program, _, _ := strings.Cut(a.Command, " ")
	return !slices.Contains(p.absent, program)
}

// optionalAbsent says that argv's optional program is not where the
// command runs (where: the toolchain image, or "" for this machine's
// PATH), and the same command with the program to run instead.
func optionalAbsent(argv []string, instead, where string) string {
	place := "on PATH"
	if where != "" {
		place = "in the toolchain image " + where
	}
	return fmt.Sprintf("no %s %s (this toolchain has %s): run %s", argv[0], place, instead, strings.Join(append([]string{instead}, argv[1:]...), " "))
}

// insteadOf is the program to run in place of program in project p when
// the toolchain lacks it (python3 for python, as Locate found), or "".
func insteadOf(program string, p *Project) string {
	if p == nil || !slices.Contains(p.absent, program) {
		return ""
	}
	e, _ := ecosystemOf(program)
	return e.Optional[program]
}

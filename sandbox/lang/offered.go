package lang

import (
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

// Lacking are the optional programs of e that has does not hold, sorted.
func Lacking(e Ecosystem, has map[string]bool) []string {
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

// OptionalAbsent says that argv's optional program is not where the
// command runs (where: the toolchain image, or "" for this machine's
// PATH), and the same command with the program to run instead.
func OptionalAbsent(argv []string, instead, where string) string {
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
	e, _ := EcosystemOf(program)
	return e.Optional[program]
}

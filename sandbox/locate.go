package sandbox

import (
	"context"

	"github.com/coreagent/core/sandbox/lang"
)

// Locate records in p which optional programs of its ecosystems (the
// Optional of Ecosystems) the toolchain lacks where their commands run:
// on this machine's PATH, or in the toolchain image under the Docker
// backend. AllowedIn then offers no command that starts with one. Where
// nothing is looked for (core's own image), nothing is recorded.
func (s *Sandbox) Locate(ctx context.Context, p *lang.Project) {
	var absent []string
	for _, e := range lang.Ecosystems() {
		if !p.Has(e.Name) || len(e.Optional) == 0 {
			continue
		}
		t, looked := s.toolchainOf(ctx, e)
		if !looked || t.err != nil {
			continue
		}
		absent = append(absent, lang.Lacking(e, t.has)...)
	}
	p.SetAbsent(absent)
}

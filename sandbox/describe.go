package sandbox

import (
	"context"

	"github.com/coreagent/core/sandbox/fingerprint"
	"github.com/coreagent/core/sandbox/lang"
)

// Fingerprint is the profile a check runs under at tier with this backend
// (BackendBwrap or BackendDocker), in words two machines compare, and the
// versions of the toolchains the checks use on this machine.
func (s *Sandbox) Fingerprint(ctx context.Context, backend string, tier lang.Tier, checks [][]string) (fingerprint.Profile, map[string]string) {
	return fingerprint.Describe(backend, string(tier), systemRoots, s.cfg.Limits), fingerprint.Toolchains(ctx, s.cfg.Path, checks)
}

// Images are the digests of the images checks (their argvs) ran in under
// the Docker backend (image → digest, docker.Backend.Digests); nil under
// any other.
func (s *Sandbox) Images(ctx context.Context, checks [][]string) map[string]string {
	if d := s.docker(ctx); d != nil {
		return d.Digests(ctx, checks)
	}
	return nil
}

// CheckEnvNames are the names of the environment a confined check whose
// program is tool runs with, never their values.
func CheckEnvNames(tool string) []string {
	p := profile{path: []string{"/usr/bin"}, modCache: "-", buildCache: "-", extraEnv: commandEnv(tool, RunOptions{Workspace: "/"})}
	return fingerprint.Names(p.env())
}

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

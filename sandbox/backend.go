package sandbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/sandbox/docker"
)

// Backend names, as the probe reports them.
const (
	BackendBwrap  = "bwrap"
	BackendDocker = "docker"
)

// backend confines one command. The policy (tiers, allowlists, the
// environment inside) is the Sandbox's; a backend only applies it with its
// own mechanism: bwrap namespaces on this machine, or a sibling container
// through the Docker engine.
type backend interface {
	run(ctx context.Context, argv []string, opts RunOptions) (Result, error)
}

// bwrapBackend runs commands under the bwrap profile.
type bwrapBackend struct {
	s     *Sandbox
	bwrap string
}

func (b bwrapBackend) run(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	return b.s.runConfined(ctx, b.bwrap, argv, opts)
}

// choose runs the live probes in the order the mode asks for and returns the
// first backend that works: bwrap, then the Docker engine. The answer says
// which one it chose and why the others were not usable.
func (s *Sandbox) choose(ctx context.Context, dir, dockerDir string) ProbeResult {
	var p ProbeResult
	if s.cfg.Mode == ModeDocker {
		p.Cause = "not tried (CORE_SESSION_SANDBOX=docker)"
	} else {
		p = s.probe(ctx, dir)
		if h := hint(p.Output, docker.InContainer()); h != "" {
			p.Cause = h
		}
		if p.Usable {
			p.Backend = BackendBwrap
			p.backend = bwrapBackend{s: s, bwrap: p.Bwrap}
			return p
		}
		if s.cfg.Mode == ModeBwrap {
			return p
		}
	}
	if dockerDir == "" {
		dockerDir = dir
	}
	// Sibling containers bind core's own caches: the user's may lie
	// anywhere, beyond what the engine can see.
	s.viaDocker.Store(true)
	d, dp := s.probeDocker(ctx, dockerDir)
	p.Docker = &dp
	if dp.Usable {
		p.Usable = true
		p.Backend = BackendDocker
		p.backend = d
	}
	return p
}

// chosen returns the backend the probe chose, or nil.
func (p ProbeResult) chosen() backend { return p.backend }

// Summary says in one line which backend confines commands, or why none
// does.
func (p ProbeResult) Summary() string {
	switch p.Backend {
	case BackendBwrap:
		return fmt.Sprintf("bwrap (%s)", orDefault(p.Version, "version unknown"))
	case BackendDocker:
		return fmt.Sprintf("a sibling container of %s through the Docker engine at %s (bwrap: %s)",
			docker.ShortID(p.Docker.Image), p.Docker.Host, firstLine(p.Cause))
	}
	s := firstLine(p.Cause)
	if p.Docker != nil {
		s += "; the Docker backend: " + firstLine(p.Docker.Cause)
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

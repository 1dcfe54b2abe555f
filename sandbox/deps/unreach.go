package deps

import (
	"fmt"
	"net"
	"strings"

	"github.com/coreagent/core/sandbox/egress"
)

// A dependency step whose registry cannot be reached fails for the
// environment, not for the code: pip then says only that no version
// satisfies a requirement, which reads like a package without a wheel.
// The step's proxy (sandbox/egress) sees every connection it makes for the
// step, so it records the allowed hosts it could not reach; a failed step
// with such a record is a *Unreachable, with the line of the step's
// output that shows it.

// Unreachable is a dependency step that failed because a registry it
// may reach could not be reached (refused, timed out, no such host): an
// outage of the environment, not the code's. sandbox.Result.Deps holds it; the
// command ran without its dependencies.
type Unreachable struct {
	// Eco is the ecosystem: node, python or rust.
	Eco string
	// Host is the registry's host:port.
	Host string
	// Evidence is the line of the step's output that shows it, or the
	// proxy's own error when the output names none.
	Evidence string
	// Cause is the proxy's error connecting to Host.
	Cause string
}

func (e *Unreachable) Error() string {
	return fmt.Sprintf("the %s registry %s could not be reached (%s): %s", ecoWords(e.Eco), e.Host, e.Cause, e.Evidence)
}

// ecoWords names an ecosystem for people.
func ecoWords(eco string) string {
	switch eco {
	case "node":
		return "npm"
	case "python":
		return "Python package index"
	case "rust":
		return "cargo"
	}
	return eco
}

// unreachableMarkers are how the steps' tools say that a connection
// failed (pip, npm, cargo, git, through the proxy or not).
var unreachableMarkers = []string{
	"connection refused", "econnrefused", "failed to establish a new connection", "tunnel connection failed",
	"cannot connect to proxy", "bad gateway", "could not fetch url", "econnreset", "etimedout", "eai_again",
	"enotfound", "network is unreachable", "couldn't connect to server", "failed to connect", "connection reset",
	"timed out",
}

// maxEvidenceLen bounds the evidence line.
const maxEvidenceLen = 300

// unreachableNamed is the first line of output that names host and says
// a connection failed; false when none does.
func unreachableNamed(output, host string) (string, bool) {
	line, named, _ := evidenceLine(output, host)
	return line, named
}

// unreachableEvidence returns the first line of output that names host
// (host:port, or its name) and says a connection failed, else the first
// line that says a connection failed; false when none does.
func unreachableEvidence(output, host string) (string, bool) {
	line, _, ok := evidenceLine(output, host)
	return line, ok
}

// evidenceLine is unreachableEvidence's line, and whether it names host.
func evidenceLine(output, host string) (string, bool, bool) {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	var fallback string
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimSpace(line)
		low := strings.ToLower(line)
		said := false
		for _, m := range unreachableMarkers {
			if strings.Contains(low, m) {
				said = true
				break
			}
		}
		if !said {
			continue
		}
		if len(line) > maxEvidenceLen {
			line = line[:maxEvidenceLen] + "…"
		}
		if host != "" && (strings.Contains(low, strings.ToLower(host)) || name != "" && strings.Contains(low, strings.ToLower(name))) {
			return line, true, true
		}
		if fallback == "" {
			fallback = line
		}
	}
	return fallback, false, fallback != ""
}

// FindUnreachable is the outage behind a failed step of eco with output,
// from the proxy's record; nil when the proxy reached every host it was
// asked for. Without a record (a step with the network of its own, no
// proxy), a line of the output that says a connection to one of hosts
// failed is the evidence.
func FindUnreachable(eco string, log *egress.Log, hosts []string, output string) *Unreachable {
	f, ok := log.First()
	if !ok {
		for _, h := range hosts {
			if line, named := unreachableNamed(output, h); named {
				return &Unreachable{Eco: eco, Host: h, Evidence: line, Cause: "the connection failed"}
			}
		}
		return nil
	}
	evidence, found := unreachableEvidence(output, f.Target)
	if !found {
		evidence = "core's proxy: " + f.Err
	}
	return &Unreachable{Eco: eco, Host: f.Target, Evidence: evidence, Cause: dialCause(f.Err)}
}

// dialCause is the short cause of a dial error ("connection refused").
func dialCause(err string) string {
	if i := strings.LastIndex(err, ": "); i >= 0 {
		return err[i+2:]
	}
	return err
}

// UnreachableNote is the note of a step that could not reach its
// registry, with the step's output.
func UnreachableNote(e *Unreachable, output string) string {
	return fmt.Sprintf("core fetched no %s dependencies: %s could not be reached (%s), an outage of the environment, not a problem of the code; the command runs without them. The evidence: %s\n%s",
		EcoName(e.Eco), e.Host, e.Cause, e.Evidence, output)
}

// EcoName is an ecosystem's name in a sentence.
func EcoName(eco string) string {
	switch eco {
	case "node":
		return "Node.js"
	case "python":
		return "Python"
	case "rust":
		return "Rust"
	}
	return eco
}

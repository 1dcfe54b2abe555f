package deps

import (
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/egress"
)

// cratesIOHosts are the hosts cargo fetches crates.io's crates from: its
// sparse index, its downloads, and its git index.
var cratesIOHosts = []string{"index.crates.io:443", "static.crates.io:443", "github.com:443"}

// cargoHosts are the hosts of crates.io and of the configured indexes in
// the step's environment (CARGO_REGISTRIES_<NAME>_INDEX=url). A registry
// whose downloads (its config.json's dl) are on another host than its
// index is not reached.
func cargoHosts(env []string) []string {
	out := slices.Clone(cratesIOHosts)
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "CARGO_REGISTRIES_") && strings.HasSuffix(name, "_INDEX") {
			for _, hp := range egress.Hosts(v) {
				if !slices.Contains(out, hp) {
					out = append(out, hp)
				}
			}
		}
	}
	return out
}

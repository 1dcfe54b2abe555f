package lang

import (
	"fmt"
	"slices"
	"strings"
)

// rustEcosystem is Rust: everything cargo compiles may run workspace code
// (a build.rs, a procedural macro), so every cargo command is at the test
// tier and runs only confined; dependencies through cargo fetch (sandbox/deps).
func rustEcosystem() Ecosystem {
	return Ecosystem{
		Name: "rust", Tools: []string{"cargo"}, Required: []string{"cargo"}, Manifests: []string{"Cargo.toml"},
		Toolchain: "install Debian's cargo (or a rustup toolchain)",
		Packages:  `PACKAGES="cargo"`,
		check:     checkRust,
		allowed: func(tier Tier, _ *Project) []Allowance {
			if tier != TierTest {
				return nil
			}
			return []Allowance{{Command: "cargo " + strings.Join(cargoSubcommands, "|"), Sandboxed: true}}
		},
	}
}

// cargoSubcommands are the cargo commands the test tier runs.
var cargoSubcommands = []string{"build", "check", "clippy", "test"}

// refusedCargoFlags change what cargo runs or where from: a configuration
// of the caller's choosing, unstable flags, another toolchain.
var refusedCargoFlags = []string{"config", "Z"}

func checkRust(tier Tier, argv []string, _ *Project) Decision {
	if len(argv) < 2 || !slices.Contains(cargoSubcommands, argv[1]) {
		got := "nothing"
		if len(argv) >= 2 {
			got = argv[1]
		}
		return refuse(fmt.Sprintf("cargo allows only %s, got %s", strings.Join(cargoSubcommands, ", "), got))
	}
	for _, a := range argv[2:] {
		if f := flagName(a); f != "" && (slices.Contains(refusedCargoFlags, f) || strings.HasPrefix(a, "-Z")) {
			return refuse(fmt.Sprintf("cargo flag %s is never allowed: it changes what cargo runs", a))
		}
	}
	if tier != TierTest {
		return refuse("cargo " + argv[1] + " compiles the workspace, which runs its build scripts and macros: it needs --verify test")
	}
	return Decision{Verdict: AllowedSandboxed}
}

package sandbox

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/egress"
)

// Rust's dependency step fetches only from the configured registries.
// cargo vendor fetches every source Cargo.lock names: a git source is a
// checkout of any host, and Cargo.toml's git and registry-index keys name
// sources by URL. So core reads both first, and runs the step only when
// every source is crates.io's index or one the host configures
// (CARGO_REGISTRIES_<NAME>_INDEX): a path dependency is the repository's
// own code, which the step neither has nor fetches. Cargo.lock is read in
// the form cargo writes it, line by line: a line of any other form refuses
// the step, so no spelling of TOML can hide a source from the check.

// cratesIOSources are how Cargo.lock names crates.io's index.
var cratesIOSources = []string{"registry+https://github.com/rust-lang/crates.io-index", "sparse+https://index.crates.io/"}

// maxCargoProblemsNamed is how many problems a note names.
const maxCargoProblemsNamed = 5

var (
	cargoLockLine = regexp.MustCompile(`^(?:` +
		`#.*` +
		`|version = [0-9]+` +
		`|\[\[package\]\]|\[\[patch\.unused\]\]|\[metadata\]` +
		`|(?:name|version|source|checksum|replace) = "[^"\\]*"` +
		`|dependencies = \[\]?` +
		`| "[^"\\]*",` +
		`|\]` +
		`|"[^"\\]*" = "[^"\\]*"` +
		`)$`)
	cargoLockSource = regexp.MustCompile(`^source = "([^"]*)"$`)
	// cargoLockRef is the source in parentheses of a dependency, a
	// replacement or a v1 checksum key: "name version (source)".
	cargoLockRef = regexp.MustCompile(`\(([^()"]*)\)`)
	// cargoSourceKey is a Cargo.toml key that names a source by URL, in
	// any of TOML's spellings of a key.
	cargoSourceKey = regexp.MustCompile(`(?m)(?:^|[\s{,.])["']?(git|registry-index)["']?\s*=`)
)

// cargoSources are the sources Cargo.lock may name: crates.io's and those
// of the configured indexes (CARGO_REGISTRIES_<NAME>_INDEX=url, as git or
// sparse+ URLs).
func cargoSources(indexes []string) []string {
	out := append([]string(nil), cratesIOSources...)
	for _, kv := range indexes {
		_, v, _ := strings.Cut(kv, "=")
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "sparse+") {
			out = append(out, v)
		} else {
			out = append(out, "registry+"+v)
		}
	}
	return out
}

// cargoLockProblems returns what refuses the step for the manifest and
// the lockfile, given the sources it may fetch from.
func cargoLockProblems(manifest, lock []byte, allowed []string) []string {
	var out []string
	for _, m := range cargoSourceKey.FindAllStringSubmatch(string(manifest), -1) {
		what := "a git dependency"
		if m[1] == "registry-index" {
			what = "a registry named by URL (registry-index)"
		}
		out = append(out, "Cargo.toml names "+what)
	}
	lines := strings.Split(strings.ReplaceAll(string(lock), "\r\n", "\n"), "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !cargoLockLine.MatchString(line) {
			return append(out, fmt.Sprintf("Cargo.lock line %d %q is not in the form cargo writes, the only one core reads", i+1, clip(line)))
		}
		var sources []string
		if m := cargoLockSource.FindStringSubmatch(line); m != nil {
			sources = append(sources, m[1])
		}
		if !strings.HasPrefix(line, "#") {
			for _, m := range cargoLockRef.FindAllStringSubmatch(line, -1) {
				sources = append(sources, m[1])
			}
		}
		for _, src := range sources {
			if why := cargoSourceProblem(src, allowed); why != "" {
				out = append(out, fmt.Sprintf("Cargo.lock line %d: %s", i+1, why))
			}
		}
	}
	return out
}

// cargoSourceProblem says why core does not fetch from src, or "".
func cargoSourceProblem(src string, allowed []string) string {
	for _, a := range allowed {
		if src == a || strings.TrimSuffix(src, "/") == strings.TrimSuffix(a, "/") {
			return ""
		}
	}
	kind, _, _ := strings.Cut(src, "+")
	switch kind {
	case "git":
		return fmt.Sprintf("a git source %q", clip(src))
	case "path":
		return fmt.Sprintf("a path source %q", clip(src))
	}
	return fmt.Sprintf("the source %q is not crates.io or a registry core is configured with (CARGO_REGISTRIES_<NAME>_INDEX)", clip(src))
}

// cargoProblemsNote is the note of a refused step.
func cargoProblemsNote(problems []string) string {
	return fmt.Sprintf("core fetched no dependencies: cargo vendor fetches only from crates.io and the registries core is configured with, never a git source or another index: %s\n",
		firstFew(problems, maxCargoProblemsNamed))
}

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

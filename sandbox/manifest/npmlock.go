package manifest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Node's dependency step fetches only tarballs of the configured registry.
// npm ci fetches each package of the lockfile from its resolved URL, from
// any host, and a git, file or link entry is a checkout or a directory
// whose own scripts and lifecycle npm may run; so core reads the lockfile
// first and runs the step only when every package it names is a tarball
// of the configured registry with an integrity, checked before anything
// is fetched. Dropping an entry would leave npm ci a lockfile that does
// not match package.json (it refuses to run), and dropping one silently
// would hide why: core refuses the step and names the packages.

// DefaultNpmRegistry is npm's registry when the host names none.
const DefaultNpmRegistry = "https://registry.npmjs.org/"

// maxNpmProblemsNamed is how many refused packages a note names.
const maxNpmProblemsNamed = 5

var (
	npmIntegrityRE = regexp.MustCompile(`^(sha1|sha256|sha384|sha512)-[A-Za-z0-9+/]+={0,2}( +(sha1|sha256|sha384|sha512)-[A-Za-z0-9+/]+={0,2})*$`)
	npmVersionRE   = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.+-]*)?$`)
	// npmRangeRE is a package.json version range for the registry: no
	// URL, path, git host or tag of another source.
	npmRangeRE = regexp.MustCompile(`^[0-9A-Za-z.*^~<>=|+ -]*$`)
)

// npmLockEntry is a package of a lockfile (v2 and v3's packages).
type npmLockEntry struct {
	Version   string `json:"version"`
	Resolved  string `json:"resolved"`
	Integrity string `json:"integrity"`
	Link      bool   `json:"link"`
	InBundle  bool   `json:"inBundle"`
	Bundled   bool   `json:"bundled"`
}

// npmLockTree is a package of v1's tree (v1 and v2's dependencies).
type npmLockTree struct {
	npmLockEntry
	Dependencies map[string]npmLockTree `json:"dependencies"`
}

// NpmLockProblems returns what refuses npm's step for the lockfile lock
// and the manifest pkg, with the registry it fetches from (its root URL):
// each a package and why; an error when the files are not JSON.
func NpmLockProblems(pkg, lock []byte, registry string) ([]string, error) {
	reg, err := url.Parse(registry)
	if err != nil || reg.Host == "" {
		return nil, fmt.Errorf("the npm registry %q is not a URL", registry)
	}
	var manifest struct {
		Dependencies         map[string]string `json:"dependencies"`
		DevDependencies      map[string]string `json:"devDependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(pkg, &manifest); err != nil {
		return nil, fmt.Errorf("package.json is not JSON that core reads: %w", err)
	}
	var l struct {
		Packages     map[string]npmLockEntry `json:"packages"`
		Dependencies map[string]npmLockTree  `json:"dependencies"`
	}
	if err := json.Unmarshal(lock, &l); err != nil {
		return nil, fmt.Errorf("the lockfile is not JSON that core reads: %w", err)
	}
	var out []string
	for _, deps := range []map[string]string{manifest.Dependencies, manifest.DevDependencies, manifest.OptionalDependencies} {
		for _, name := range sortedNames(deps) {
			if spec := deps[name]; !npmRegistrySpec(spec) {
				out = append(out, fmt.Sprintf("%s %q in package.json (not a version range of the registry)", name, spec))
			}
		}
	}
	for _, key := range sortedNames(l.Packages) {
		if key == "" {
			continue // the project itself
		}
		if why := npmEntryProblem(key, l.Packages[key], reg); why != "" {
			out = append(out, key+" ("+why+")")
		}
	}
	var walk func(prefix string, deps map[string]npmLockTree)
	walk = func(prefix string, deps map[string]npmLockTree) {
		for _, name := range sortedNames(deps) {
			e := deps[name]
			if why := npmEntryProblem("node_modules/"+name, e.npmLockEntry, reg); why != "" {
				out = append(out, prefix+name+" ("+why+")")
			}
			walk(prefix+name+" > ", e.Dependencies)
		}
	}
	walk("", l.Dependencies)
	return out, nil
}

// npmEntryProblem says why core refuses a lockfile's package at key, or
// "".
func npmEntryProblem(key string, e npmLockEntry, reg *url.URL) string {
	switch {
	case e.Link:
		return "a link to a directory of the repository"
	case !strings.HasPrefix(key, "node_modules/") && !strings.Contains(key, "/node_modules/"):
		return "a package from a directory of the repository"
	case e.InBundle || e.Bundled:
		return "" // inside its parent's tarball, checked there
	case e.Resolved == "":
		if npmVersionRE.MatchString(e.Version) {
			return "" // npm asks the configured registry for it by version
		}
		return fmt.Sprintf("version %q is not a registry version", e.Version)
	}
	if why := npmTarball(e.Resolved, reg); why != "" {
		return why
	}
	if !npmIntegrityRE.MatchString(e.Integrity) {
		return "no integrity"
	}
	return ""
}

// npmTarball says why resolved is not a tarball of the registry reg, or
// "". A tarball of npm's public registry is one too: npm fetches it from
// the configured registry instead (replace-registry-host).
func npmTarball(resolved string, reg *url.URL) string {
	u, err := url.Parse(resolved)
	if err != nil || u.Scheme == "" {
		return fmt.Sprintf("resolved %q is not a URL", clip(resolved))
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Sprintf("resolved %q is a %s source, not a registry tarball", clip(resolved), u.Scheme)
	}
	prefix := strings.TrimSuffix(reg.Path, "/") + "/"
	onRegistry := u.Scheme == reg.Scheme && u.Host == reg.Host && strings.HasPrefix(u.Path, prefix)
	onPublic := u.Scheme == "https" && u.Host == "registry.npmjs.org"
	if !onRegistry && !onPublic || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Sprintf("resolved %q is not on the configured registry %s", clip(resolved), reg.Redacted())
	}
	if !strings.Contains(u.Path, "/-/") || !strings.HasSuffix(u.Path, ".tgz") {
		return fmt.Sprintf("resolved %q is not a registry tarball", clip(resolved))
	}
	return ""
}

// npmRegistrySpec reports whether a package.json dependency's spec is a
// version range (or an npm: alias of one) that npm resolves from the
// registry: no URL, git, file, link or owner/repo shorthand.
func npmRegistrySpec(spec string) bool {
	if rest, ok := strings.CutPrefix(spec, "npm:"); ok {
		at := strings.LastIndexByte(rest, '@')
		if at <= 0 {
			return npmRangeRE.MatchString(rest) && !strings.ContainsAny(rest, "/:")
		}
		return npmRangeRE.MatchString(rest[at+1:])
	}
	return npmRangeRE.MatchString(spec)
}

// NpmProblemsNote is the note of a refused step.
func NpmProblemsNote(lockName string, problems []string) string {
	return fmt.Sprintf("core fetched no dependencies: %s names %s not a tarball of the configured registry with an integrity, and core fetches nothing else (no git, file or link dependency, no other host): %s\n",
		lockName, Entries(len(problems), "package", "packages"), firstFew(problems, maxNpmProblemsNamed))
}

// firstFew joins the first n of items, and says how many more there are.
func firstFew(items []string, n int) string {
	named := strings.Join(items[:min(len(items), n)], "; ")
	if more := len(items) - n; more > 0 {
		named += fmt.Sprintf("; and %d more", more)
	}
	return named
}

// clip shortens a quoted value of the repository's for a note.
func clip(s string) string {
	if len(s) > maxPipDroppedQuoteLen {
		return s[:maxPipDroppedQuoteLen] + "…"
	}
	return s
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

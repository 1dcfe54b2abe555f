package manifest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Python's resolution (sandbox/deps/resolve.go) is pip install --dry-run --report:
// pip resolves the requirements against the index, wheels only, installs
// nothing, and writes what it would install as JSON. Core reads only each
// package's name and version from it, checks both, and writes them as
// name==version lines: the pins the run's installs use on both sides of
// the contract. The report is written by pip with the network on, from
// what the index said, so it is read as hostile: bounded, and a name or
// version of any other form refuses it.

// maxPipReportPackages bounds how many packages a report may pin.
const maxPipReportPackages = 5000

var (
	pipPinName    = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$`)
	pipPinVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.!+_-]{0,99}$`)
)

// PipReportPins reads pip's installation report and returns its packages
// as sorted name==version lines; an error says what of it core refuses.
func PipReportPins(report []byte) ([]byte, error) {
	var r struct {
		Install []struct {
			Metadata struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"metadata"`
		} `json:"install"`
	}
	if err := json.Unmarshal(report, &r); err != nil {
		return nil, fmt.Errorf("pip's report is not JSON that core reads: %w", err)
	}
	if len(r.Install) > maxPipReportPackages {
		return nil, fmt.Errorf("pip's report names %d packages, more than the %d core pins", len(r.Install), maxPipReportPackages)
	}
	seen := map[string]string{}
	var lines []string
	for _, p := range r.Install {
		name, version := p.Metadata.Name, p.Metadata.Version
		if !pipPinName.MatchString(name) {
			return nil, fmt.Errorf("pip's report names a package %q, which is no package name", clip(name))
		}
		if !pipPinVersion.MatchString(version) {
			return nil, fmt.Errorf("pip's report gives %s the version %q, which is no version", name, clip(version))
		}
		norm := NormalizePythonName(name)
		if v, ok := seen[norm]; ok {
			if v != version {
				return nil, fmt.Errorf("pip's report gives %s two versions, %s and %s", name, v, version)
			}
			continue
		}
		seen[norm] = version
		lines = append(lines, norm+"=="+version)
	}
	slices.Sort(lines)
	if len(lines) == 0 {
		return []byte{}, nil
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// PythonPinned reports whether every requirement (as core re-emits them)
// names its exact version (== without a wildcard, or ===).
func PythonPinned(reqs []string) bool {
	for _, r := range reqs {
		spec, _, _ := strings.Cut(r, ";") // the marker
		_, v, ok := strings.Cut(spec, "==")
		if !ok || strings.ContainsAny(v, "*,<>~!") {
			return false
		}
	}
	return true
}

package deps

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/manifest"
)

// What the dependency steps say while they work: each phase (resolving a
// lockfile, fetching, Go's module download) one line when it starts, with
// how many packages, and one when it ends, with how long, on the
// command's progress writer (sandbox.RunOptions.Progress); never a line per
// package.

// LockPackages counts the packages a lockfile of eco fetches: npm's
// entries under node_modules, cargo's with a source, Python's pins.
func LockPackages(eco string, lock []byte) int {
	n := 0
	switch eco {
	case "node":
		n = npmLockCount(lock)
	case "rust":
		for _, line := range strings.Split(string(lock), "\n") {
			if strings.HasPrefix(line, "source = ") {
				n++
			}
		}
	case "python":
		for _, line := range strings.Split(string(lock), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "-") {
				n++
			}
		}
	}
	return n
}

// npmLockCount counts the packages a package-lock.json installs.
func npmLockCount(lock []byte) int {
	var l struct {
		Packages     map[string]json.RawMessage `json:"packages"`
		Dependencies map[string]json.RawMessage `json:"dependencies"`
	}
	if json.Unmarshal(lock, &l) != nil {
		return 0
	}
	if l.Packages == nil {
		return len(l.Dependencies)
	}
	n := 0
	for key := range l.Packages {
		if strings.HasPrefix(key, "node_modules/") || strings.Contains(key, "/node_modules/") {
			n++
		}
	}
	return n
}

// PackagesWord is "3 Node.js packages".
func PackagesWord(eco string, n int) string {
	return manifest.Entries(n, EcoName(eco)+" package", EcoName(eco)+" packages")
}

// GoSumModules counts the modules the go.sum files among files name (a
// module's zip, not its go.mod alone).
func GoSumModules(files map[string][]byte) int {
	seen := map[string]bool{}
	for name, body := range files {
		if name != "go.sum" && !strings.HasSuffix(name, "/go.sum") && name != "go.work.sum" {
			continue
		}
		for _, line := range strings.Split(string(body), "\n") {
			f := strings.Fields(line)
			if len(f) == 3 && !strings.HasSuffix(f[1], "/go.mod") {
				seen[f[0]+"@"+f[1]] = true
			}
		}
	}
	return len(seen)
}

// RoundDuration rounds d for people.
func RoundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

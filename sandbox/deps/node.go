package deps

import (
	"path/filepath"
	"strings"

	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/manifest"
)

// planNodeDeps is Node's step: npm ci --ignore-scripts of what the lockfile
// names, from the configured registry only (sandbox/manifest/npmlock.go),
// with npm's configuration core's own: the registry the host names
// (hostEnv) or npm's, no user configuration, and the scratch directory
// holds no .npmrc (only package.json and the lockfile are copied). Without
// a lockfile the plan resolves one from package.json (npm install
// --package-lock-only --ignore-scripts, resolve.go); planned again
// with what it resolved (resolved), it is npm ci of that, checked as a
// committed lockfile is.
func planNodeDeps(read func(...string) (map[string][]byte, error), hostEnv []string, resolved []byte) (Plan, string, bool, error) {
	files, err := read("package.json", "package-lock.json", "npm-shrinkwrap.json")
	if err != nil || files["package.json"] == nil {
		return Plan{}, "", false, err
	}
	lockName := "npm-shrinkwrap.json" // npm ci prefers it
	lock := files[lockName]
	if lock == nil {
		lockName, lock = "package-lock.json", files["package-lock.json"]
	}
	registry := npmRegistry(hostEnv)
	if lock == nil && resolved != nil {
		lockName, lock = "package-lock.json", resolved
		files[lockName] = resolved
	}
	if lock == nil {
		if !hasNodeDependencies(files["package.json"]) {
			return Plan{}, "", false, nil
		}
		return planNpmResolve(files["package.json"], registry)
	}
	problems, err := manifest.NpmLockProblems(files["package.json"], lock, registry)
	if err != nil {
		return Plan{}, "core fetched no dependencies: " + err.Error() + "\n", false, nil
	}
	if len(problems) > 0 {
		return Plan{}, manifest.NpmProblemsNote(lockName, problems), false, nil
	}
	return Plan{
		Eco: "node", Tool: "npm", Files: files, Hosts: egress.Hosts(registry),
		Argv: []string{"npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier"},
		Env:  npmStepEnv(registry),
		View: func(dir, ws string) View {
			if !emptyOrAbsent(filepath.Join(ws, "node_modules")) {
				return View{} // the workspace's own
			}
			host, inside := filepath.Join(dir, "node_modules"), filepath.Join(ws, "node_modules")
			return View{Binds: []Bind{{Host: host, Inside: inside}}, Writable: writableDirs(host, inside, nodeWritable)}
		},
		Failed: func(out string) string {
			return "npm ci --ignore-scripts (run by core, confined, with the network) failed; the command runs without the dependencies:\n" + out
		},
	}, "", true, nil
}

// npmStepEnv is npm's configuration in Node's steps: core's own, none of
// the user's or the repository's (the scratch directory holds no .npmrc),
// scripts off, from the registry alone.
func npmStepEnv(registry string) []string {
	return []string{"npm_config_cache=/tmp/npm-cache", "npm_config_update_notifier=false", "npm_config_userconfig=/dev/null",
		"npm_config_registry=" + registry, "npm_config_replace_registry_host=npmjs",
		"npm_config_ignore_scripts=true"}
}

// planNpmResolve is the step that resolves package-lock.json from
// package.json alone: npm fetches the registry's metadata of each
// package, no tarball, and runs nothing (--package-lock-only,
// --ignore-scripts). A dependency that is not a version range of the
// registry (git, a URL, a path) refuses it before anything is fetched,
// as it refuses a committed lockfile.
func planNpmResolve(pkg []byte, registry string) (Plan, string, bool, error) {
	problems, err := manifest.NpmLockProblems(pkg, []byte("{}"), registry)
	if err != nil {
		return Plan{}, "core fetched no dependencies: " + err.Error() + "\n", false, nil
	}
	if len(problems) > 0 {
		return Plan{}, manifest.NpmProblemsNote("package.json", problems), false, nil
	}
	return Plan{
		Eco: "node", Tool: "npm", Files: map[string][]byte{"package.json": pkg}, Hosts: egress.Hosts(registry),
		Resolves: "package-lock.json",
		Argv:     []string{"npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier"},
		Env:      append(npmStepEnv(registry), "npm_config_package_lock=true"),
		Failed: func(out string) string {
			return "core fetched no dependencies: there is no package-lock.json, and npm install --package-lock-only --ignore-scripts (run by core, confined, with the network) could not resolve one from package.json; the command runs without the dependencies:\n" + out
		},
	}, "", true, nil
}

// npmRegistry is the registry the host names (npm_config_registry, as
// npm reads it first), or npm's own.
func npmRegistry(hostEnv []string) string {
	got := ""
	for _, name := range []string{"NPM_CONFIG_REGISTRY", "npm_config_registry"} {
		for _, kv := range hostEnv {
			if v, ok := strings.CutPrefix(kv, name+"="); ok && v != "" {
				got = v
			}
		}
	}
	if got == "" {
		return manifest.DefaultNpmRegistry
	}
	return got
}

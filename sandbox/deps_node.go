package sandbox

import (
	"path/filepath"
	"strings"

	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/manifest"
)

// planNodeDeps is Node's step: npm ci --ignore-scripts of what the
// lockfile names, from the configured registry only (npmlock.go), with
// npm's configuration core's own: the registry the host names (hostEnv) or
// npm's, no user configuration, and the scratch directory holds no .npmrc
// (only package.json and the lockfile are copied). Without a lockfile the
// plan resolves one from package.json (npm install --package-lock-only
// --ignore-scripts, lockless.go); planned again with what it resolved
// (resolved), it is npm ci of that, checked as a committed lockfile is.
func planNodeDeps(read func(...string) (map[string][]byte, error), hostEnv []string, resolved []byte) (depsPlan, string, bool, error) {
	files, err := read("package.json", "package-lock.json", "npm-shrinkwrap.json")
	if err != nil || files["package.json"] == nil {
		return depsPlan{}, "", false, err
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
			return depsPlan{}, "", false, nil
		}
		return planNpmResolve(files["package.json"], registry)
	}
	problems, err := manifest.NpmLockProblems(files["package.json"], lock, registry)
	if err != nil {
		return depsPlan{}, "core fetched no dependencies: " + err.Error() + "\n", false, nil
	}
	if len(problems) > 0 {
		return depsPlan{}, manifest.NpmProblemsNote(lockName, problems), false, nil
	}
	return depsPlan{
		eco: "node", tool: "npm", files: files, hosts: egress.Hosts(registry),
		argv: []string{"npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier"},
		env:  npmStepEnv(registry),
		view: func(dir, ws string) depsView {
			if !emptyOrAbsent(filepath.Join(ws, "node_modules")) {
				return depsView{} // the workspace's own
			}
			host, inside := filepath.Join(dir, "node_modules"), filepath.Join(ws, "node_modules")
			return depsView{binds: []bind{{host: host, inside: inside}}, writable: writableDirs(host, inside, nodeWritable)}
		},
		failed: func(out string) string {
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
func planNpmResolve(pkg []byte, registry string) (depsPlan, string, bool, error) {
	problems, err := manifest.NpmLockProblems(pkg, []byte("{}"), registry)
	if err != nil {
		return depsPlan{}, "core fetched no dependencies: " + err.Error() + "\n", false, nil
	}
	if len(problems) > 0 {
		return depsPlan{}, manifest.NpmProblemsNote("package.json", problems), false, nil
	}
	return depsPlan{
		eco: "node", tool: "npm", files: map[string][]byte{"package.json": pkg}, hosts: egress.Hosts(registry),
		resolves: "package-lock.json",
		argv:     []string{"npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier"},
		env:      append(npmStepEnv(registry), "npm_config_package_lock=true"),
		failed: func(out string) string {
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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit/registry"
)

// The package registries of the ecosystems beside Go, on loopback, for the
// scripts whose dependency step fetches (registry.Registry).
type registryKey struct{}

// registryState is a script's registry, and the test it lives as long as.
type registryState struct {
	t   testing.TB
	reg *registry.Registry
}

// registryOf returns the script's registry, started by registry-serve.
func registryOf(ts *testscript.TestScript) *registry.Registry {
	st, _ := ts.Value(registryKey{}).(*registryState)
	if st == nil || st.reg == nil {
		ts.Fatalf("no registry: run registry-serve first")
	}
	return st.reg
}

// registry-serve: serve the registries on 127.0.0.1; it sets NPM_REGISTRY
// (npm's registry), CARGO_INDEX (cargo's git index), PIP_INDEX (a PEP 503
// index) and REGISTRY_ADDR (host:port).
func cmdRegistryServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: registry-serve")
	}
	st, _ := ts.Value(registryKey{}).(*registryState)
	st.reg = registry.NewRegistry(st.t)
	ts.Setenv("NPM_REGISTRY", st.reg.NpmURL())
	ts.Setenv("CARGO_INDEX", st.reg.CargoGitIndex())
	ts.Setenv("PIP_INDEX", st.reg.SimpleURL())
	ts.Setenv("REGISTRY_ADDR", strings.TrimPrefix(st.reg.URL, "http://"))
}

// registry-npm NAME VERSION DIR: publish the npm package holding DIR's
// files; it sets NPM_TARBALL and NPM_INTEGRITY, as package-lock.json names
// them.
func cmdRegistryNpm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: registry-npm NAME VERSION DIR")
	}
	tarball, integrity := registryOf(ts).AddNpm(args[0], args[1], filesUnder(ts, args[2]))
	ts.Setenv("NPM_TARBALL", tarball)
	ts.Setenv("NPM_INTEGRITY", integrity)
}

// registry-crate NAME VERSION DIR: publish the crate holding DIR's files;
// it sets CRATE_CHECKSUM, as Cargo.lock names it.
func cmdRegistryCrate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: registry-crate NAME VERSION DIR")
	}
	ts.Setenv("CRATE_CHECKSUM", registryOf(ts).AddCrate(args[0], args[1], filesUnder(ts, args[2])))
}

// registry-pytest: publish the pytest Debian installed on this machine
// (python3-pytest) and what it needs, as wheels.
func cmdRegistryPytest(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: registry-pytest")
	}
	ts.Check(registryOf(ts).AddInstalledPytest(registry.DebianSite))
}

// registry-requests FILE: write the paths the registries were asked for,
// one a line.
func cmdRegistryRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: registry-requests FILE")
	}
	var out []byte
	for _, p := range registryOf(ts).Requests() {
		out = append(out, p+"\n"...)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
}

// expand-env FILE...: replace $NAME and ${NAME} in each FILE with the
// script's variables (a lockfile that names what registry-npm published).
func cmdExpandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand-env FILE...")
	}
	for _, f := range args {
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(os.Expand(ts.ReadFile(f), ts.Getenv)), 0o644))
	}
}

// filesUnder reads the files under dir, by slash-separated relative path,
// but those of a .git directory (a clone's).
func filesUnder(ts *testscript.TestScript, dir string) map[string]string {
	files := map[string]string{}
	root := ts.MkAbs(dir)
	ts.Check(filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() && fi.Name() == ".git" {
			return filepath.SkipDir
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return files
}

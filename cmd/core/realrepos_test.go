package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestRealRepositories runs the scripts under bench/languages: a fix on a
// real Python, Node.js and Rust repository, each broken in one place, that
// a scripted model restores; the contract must show the repository's own
// test command going from failing to passing. The repositories are not
// core's: bench/languages.sh clones them at pinned commits, breaks them,
// and names their directory in CORE_REAL_REPOS; without it this skips.
func TestRealRepositories(t *testing.T) {
	repos := os.Getenv("CORE_REAL_REPOS")
	if repos == "" {
		t.Skip("CORE_REAL_REPOS is not set: bench/languages.sh prepares the repositories and runs this")
	}
	runScripts(t, "../../bench/languages", map[string]string{"REPOS": repos})
}

// TestRealRepositoriesAction runs the scripts under bench/languages/action:
// the same fixes of the same real repositories in the Action, on its image
// and on the toolchain images that make test-docker builds
// (CORE_DOCKER_IMAGE, CORE_TEST_PYTHON_IMAGE, ...); bench/languages.sh
// runs it beside TestRealRepositories.
func TestRealRepositoriesAction(t *testing.T) {
	repos := os.Getenv("CORE_REAL_REPOS")
	if repos == "" {
		t.Skip("CORE_REAL_REPOS is not set: bench/languages.sh prepares the repositories and runs this")
	}
	testscript.Run(t, dockerActionParams(t, "../../bench/languages/action", map[string]string{"REPOS": repos}))
}

// TestRealRepositoryFixes runs the scripts bench/realrepos.sh writes, one
// per real upstream fix (the fix's tests committed on its parent, the
// scripted model writing the fix's other files), from the directory
// CORE_REAL_FIXES names; the script reads what each session printed and
// reported. Without it this skips.
func TestRealRepositoryFixes(t *testing.T) {
	dir := os.Getenv("CORE_REAL_FIXES")
	if dir == "" {
		t.Skip("CORE_REAL_FIXES is not set: bench/realrepos.sh writes the scripts and runs this")
	}
	// The user's home: cargo's rustup and the user's caches, as a
	// person's session would have them.
	runScripts(t, dir, map[string]string{"HOME": os.Getenv("HOME")})
}

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

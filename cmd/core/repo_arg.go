package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/coreagent/core/gh"
)

// checkRepo refuses a --repo that is neither a directory here nor
// owner/name, before anything else is looked at: a GitHub URL is answered
// with the owner/name it names, a path that does not exist is called
// missing.
func checkRepo(repo string) error {
	if fi, err := os.Stat(repo); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("--repo %s is a file: give a local git repository's directory, or owner/name on GitHub", repo)
		}
		return nil
	}
	if name, ok := repoFromURL(repo); ok {
		return fmt.Errorf("--repo takes owner/name for a GitHub repository, not a URL: did you mean --repo %s?", name)
	}
	if looksLikePath(repo) {
		return fmt.Errorf("--repo %s: no such directory (give a local git repository's directory, or owner/name on GitHub)", repo)
	}
	if !gh.IsRepoName(repo) {
		return fmt.Errorf("--repo must be owner/name on GitHub or a local path to a git repository, got %q", repo)
	}
	return nil
}

// repoFromURL reads owner/name out of the ways people copy a GitHub
// repository: https://github.com/o/n, github.com/o/n, git@github.com:o/n.git.
func repoFromURL(s string) (string, bool) {
	rest := s
	for _, p := range []string{"https://", "http://", "ssh://", "git@", "www."} {
		rest = strings.TrimPrefix(rest, p)
	}
	rest = strings.TrimPrefix(rest, "git@")
	host, path, ok := strings.Cut(rest, "/")
	if h, p, colon := strings.Cut(rest, ":"); colon && !strings.Contains(h, "/") {
		host, path, ok = h, p, true
	}
	if !ok || !strings.Contains(host, ".") || strings.HasPrefix(host, ".") {
		return "", false
	}
	path = strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	parts := strings.Split(path, "/")
	if len(parts) < 2 {
		return "", false
	}
	name := parts[0] + "/" + parts[1]
	return name, gh.IsRepoName(name)
}

// looksLikePath reports whether repo was meant as a path on this machine.
func looksLikePath(repo string) bool {
	return strings.HasPrefix(repo, "/") || strings.HasPrefix(repo, ".") || strings.HasPrefix(repo, "~") || strings.Count(repo, "/") > 1
}

package contract

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/coreagent/core/internal/clip"
)

// The causes of an environment's outcome, as the contract says them.
const (
	causeTimedOutBoth = "timed out on both sides: could not judge"
	causeToolMissing  = "a tool is missing"
	causeReadOnly     = "a read-only path was written"
	causeUnreachable  = "a package index or module proxy was unreachable"
	causeDepMissing   = "a dependency is missing"
	causeSetup        = "core's preparation for it failed (the module download)"
)

// maxEvidence bounds the evidence line a check result keeps.
const maxEvidence = 240

// envRule is one pattern of an environment's failure: the line that
// matches names the cause; name, when set, picks out what is missing.
type envRule struct {
	cause string
	re    *regexp.Regexp
	// local, when set, says the match is the code's after all: the module
	// it names is the repository's own (a Python import of a module in the
	// repository, a relative Node.js require).
	local func(name string, isLocal func(string) bool) bool
}

// envRules are tried on each line of a failed check's output, in order;
// the first line that matches a rule is the evidence. The lines are those
// the tools print (dash and bash, npm 6–10, pip, cargo, the go command,
// CPython and Node.js).
var envRules = []envRule{
	// sh: 1: xo: not found; bash: line 1: xo: command not found;
	// /bin/sh: xo: not found; env: 'node': No such file or directory
	{cause: causeToolMissing, re: regexp.MustCompile(`^(?:/(?:usr/)?bin/)?(?:ba|da)?sh: (?:\d+: |line \d+: )?([^\s:]+): (?:command )?not found$`)},
	{cause: causeToolMissing, re: regexp.MustCompile(`^(?:/usr/bin/)?env: '?([^\s':]+)'?: No such file or directory$`)},
	// EROFS: read-only file system, mkdir '/w/node_modules/.cache/nyc';
	// OSError: [Errno 30] Read-only file system: '.pytest_cache';
	// failed to create directory `target` ... Read-only file system (os error 30)
	{cause: causeReadOnly, re: regexp.MustCompile(`(?i)\bEROFS\b|Read-only file system`)},
	// pip: ERROR: Could not find a version that satisfies the requirement x
	// (from versions: none); ERROR: No matching distribution found for x;
	// WARNING: Retrying (...) after connection broken by
	// 'NewConnectionError(...: Failed to establish a new connection: ...)'
	{cause: causeUnreachable, re: regexp.MustCompile(`Could not find a version that satisfies the requirement|No matching distribution found for|Failed to establish a new connection`)},
	// npm ERR! code ENOTFOUND; npm error code ECONNREFUSED;
	// npm ERR! network getaddrinfo EAI_AGAIN registry.npmjs.org
	{cause: causeUnreachable, re: regexp.MustCompile(`^npm (?:ERR!|error) .*\b(?:ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ECONNRESET|ETIMEDOUT)\b|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) \S*registry`)},
	// cargo: warning: spurious network error (2 tries remaining): [6]
	// Couldn't resolve host name (Could not resolve host: index.crates.io);
	// failed to download from `https://index.crates.io/config.json`
	{cause: causeUnreachable, re: regexp.MustCompile("spurious network error|failed to download from `|(?:Couldn't|Could not) resolve host|failed to download `")},
	// go: example.com/m@v1.0.0: Get "https://proxy.golang.org/...": dial
	// tcp 127.0.0.1:8080: connect: connection refused
	{cause: causeUnreachable, re: regexp.MustCompile(`^go: .*(?:dial tcp|no such host|connection refused)`)},
	// go: example.com/m@v1: module lookup disabled by GOPROXY=off
	{cause: causeDepMissing, re: regexp.MustCompile(`module lookup disabled by GOPROXY=off`)},
	// main.go:4:2: no required module provides package example.com/x; to add it:
	{cause: causeDepMissing, re: regexp.MustCompile(`no required module provides package ([^\s;]+)`)},
	// missing go.sum entry for module providing package example.com/x
	{cause: causeDepMissing, re: regexp.MustCompile(`missing go\.sum entry(?: for module providing package ([^\s;]+))?`)},
	// E   ModuleNotFoundError: No module named 'requests'
	{cause: causeDepMissing, re: regexp.MustCompile(`ModuleNotFoundError: No module named '([^']+)'`), local: pythonLocal},
	// Error: Cannot find module 'tap'; Error [ERR_MODULE_NOT_FOUND]:
	// Cannot find package 'chai' imported from /w/test/a.test.js
	{cause: causeDepMissing, re: regexp.MustCompile(`Cannot find (?:module|package) '([^']+)'`), local: nodeLocal},
}

// pythonLocal reports whether a missing Python module is the repository's
// own: its top-level package is there, so the import is the code's.
func pythonLocal(name string, isLocal func(string) bool) bool {
	top, _, _ := strings.Cut(name, ".")
	return isLocal != nil && isLocal(top)
}

// nodeLocal reports whether a module Node.js could not find is a file of
// the repository (a relative or absolute path outside node_modules)
// rather than a package.
func nodeLocal(name string, _ func(string) bool) bool {
	switch {
	case strings.HasPrefix(name, "."):
		return true
	case strings.HasPrefix(name, "/"):
		return !strings.Contains(name, "/node_modules/")
	}
	return false
}

// environmentCause says whether a failed run of a check failed because of
// the environment rather than the code: a tool or a dependency missing, a
// read-only path written, a package index unreachable, or core's own
// preparation failing. It returns the cause in words and the line of
// output that shows it, or "" when the failure is the code's. isLocal
// reports whether a module name is the repository's own (a file or folder
// of that name at its top or under src/); nil: none is.
func environmentCause(r CheckResult, output string, setup bool, isLocal func(string) bool) (cause, evidence string) {
	if r.Passed || r.TimedOut || r.Inapplicable || r.Error != "" {
		return "", ""
	}
	if setup {
		return causeSetup, lastLine(output)
	}
	for line := range strings.Lines(output) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		for _, rule := range envRules {
			m := rule.re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			name := ""
			if len(m) > 1 {
				name = m[1]
			}
			if rule.local != nil && rule.local(name, isLocal) {
				continue
			}
			cause = rule.cause
			if name != "" {
				cause += ": " + name
			}
			return cause, clip.Line(line, maxEvidence)
		}
	}
	if r.Exit == 127 {
		// The shell's own status for a command not found, whatever it said.
		return causeToolMissing + " (exit 127: command not found)", clip.Line(lastLine(output), maxEvidence)
	}
	return "", ""
}

// lastLine is the last line of output that is not blank.
func lastLine(output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// RepoModule reports whether name is a module of the repository checked
// out in dir: a file name.py or a folder name at its top or under src/.
// It never follows a link (os.Lstat) and refuses a name that is not one
// path element.
func RepoModule(dir string) func(name string) bool {
	return func(name string) bool {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
			return false
		}
		for _, p := range []string{name + ".py", name, filepath.Join("src", name+".py"), filepath.Join("src", name)} {
			if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
				return true
			}
		}
		return false
	}
}

package lang

import (
	"fmt"
	"slices"
	"strings"
)

// nodeEcosystem is Node.js: npm test, the scripts package.json names, node
// --test and the test runners a script names, all at the test tier (a
// script is the workspace's own shell text); dependencies through npm ci
// --ignore-scripts (sandbox/deps).
func nodeEcosystem() Ecosystem {
	return Ecosystem{
		Name: "node", Tools: []string{"npm", "node", "npx"}, Required: []string{"node", "npm"}, Manifests: []string{"package.json"},
		Toolchain: "install Debian's nodejs and npm",
		Packages:  `PACKAGES="nodejs npm"`,
		check:     checkNode,
		allowed:   allowedNode,
	}
}

// nodeRunners are the test runners npx may start, when a script of the
// workspace's package.json names them.
var nodeRunners = []string{"vitest", "jest", "mocha", "ava", "tap"}

func checkNode(tier Tier, argv []string, p *Project) Decision {
	name := argv[0]
	switch {
	case name == "npm" && len(argv) >= 2 && argv[1] == "test":
		name = "npm test"
	case name == "npm" && len(argv) >= 3 && argv[1] == "run" && !strings.HasPrefix(argv[2], "-"):
		if p != nil && p.known {
			if _, ok := p.scripts[argv[2]]; !ok {
				return refuse(fmt.Sprintf("npm run %s: package.json names no script %s (scripts: %s)", argv[2], argv[2], orNone(p.Scripts)))
			}
		}
		name = "npm run " + argv[2]
	case name == "node" && len(argv) >= 2 && argv[1] == "--test":
		name = "node --test"
	case name == "npx" && len(argv) >= 2 && slices.Contains(nodeRunners, argv[1]):
		if p != nil && p.known && !slices.Contains(p.runners(), argv[1]) {
			return refuse(fmt.Sprintf("npx %s: no script in package.json names %s; npx runs only the test runners the scripts name", argv[1], argv[1]))
		}
		name = "npx " + argv[1]
	default:
		return refuse(fmt.Sprintf("%s is not a verification command (allowed: npm test, npm run <a script package.json names>, node --test, npx <a test runner a script names: %s>)", strings.Join(argv, " "), strings.Join(nodeRunners, ", ")))
	}
	if tier != TierTest {
		return refuse(name + " runs workspace code: it needs --verify test")
	}
	return Decision{Verdict: AllowedSandboxed}
}

func allowedNode(tier Tier, p *Project) []Allowance {
	if tier != TierTest {
		return nil
	}
	list := []Allowance{{Command: "npm test", Sandboxed: true}}
	switch scripts := p.plainScripts(); {
	case p == nil || !p.known:
		list = append(list, Allowance{Command: "npm run <script>", Sandboxed: true})
	case len(scripts) > 0:
		list = append(list, Allowance{Command: "npm run " + strings.Join(scripts, "|"), Sandboxed: true})
	}
	list = append(list, Allowance{Command: "node --test", Sandboxed: true})
	if p == nil || !p.known {
		return append(list, Allowance{Command: "npx " + strings.Join(nodeRunners, "|"), Sandboxed: true})
	}
	if r := p.runners(); len(r) > 0 {
		list = append(list, Allowance{Command: "npx " + strings.Join(r, "|"), Sandboxed: true})
	}
	return list
}

// plainScripts are the names of the scripts that can be written as one
// plain argument.
func (p *Project) plainScripts() []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, s := range p.Scripts {
		if !strings.ContainsAny(s, metacharacters+"| \t") && !strings.HasPrefix(s, "-") && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// runners are the test runners the scripts name as their program (or
// through npx), in nodeRunners' order.
func (p *Project) runners() []string {
	var out []string
	for _, r := range nodeRunners {
		for _, text := range p.scripts {
			if slices.Contains(scriptPrograms(text), r) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// scriptPrograms are the programs a script of package.json starts, one
// for each command of a list ("xo && ava && tsd": xo, ava and tsd), past
// an npx before one.
func scriptPrograms(text string) []string {
	var out []string
	for _, cmd := range strings.FieldsFunc(text, func(r rune) bool { return r == '&' || r == '|' || r == ';' }) {
		words := strings.Fields(cmd)
		if len(words) > 0 && words[0] == "npx" {
			words = words[1:]
		}
		if len(words) > 0 {
			out = append(out, words[0])
		}
	}
	return out
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Runners are the test runners package.json's scripts name as their
// program (or through npx): vitest, jest, mocha, ava, tap, in that order.
func (p *Project) Runners() []string {
	if p == nil {
		return nil
	}
	return p.runners()
}

package lang

import (
	"fmt"
	"slices"
)

// pythonEcosystem is Python: pytest and unittest, at the test tier only
// (collecting tests imports the workspace's code), with the host's python3
// and the packages it has; dependencies come as wheels only (sandbox/deps).
func pythonEcosystem() Ecosystem {
	return Ecosystem{
		Name: "python", Tools: []string{"python3", "python", "pytest"}, Required: []string{"python3", "pytest"},
		Manifests: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt", "tox.ini", "pytest.ini"},
		Inferred:  "Python tests (test_*.py, *_test.py, tests/*.py) in a repository without any manifest",
		Optional:  map[string]string{"python": "python3"},
		Toolchain: "install Debian's python3 and python3-pytest (a python3 outside your home directory: pyenv shims do not work in the sandbox)",
		Packages:  `PACKAGES="python3 python3-pytest python3-pip"`,
		Runners:   map[string]string{"pytest": "pip3"},
		check:     checkPython,
		allowed: func(tier Tier, _ *Project) []Allowance {
			if tier != TierTest {
				return nil
			}
			return []Allowance{
				{Command: "pytest", Sandboxed: true},
				{Command: "python -m pytest|unittest", Sandboxed: true},
				{Command: "python3 -m pytest|unittest", Sandboxed: true},
			}
		},
	}
}

// pythonModules are the modules python -m may run.
var pythonModules = []string{"pytest", "unittest"}

func checkPython(tier Tier, argv []string, _ *Project) Decision {
	name := argv[0]
	if name != "pytest" {
		if len(argv) < 3 || argv[1] != "-m" || !slices.Contains(pythonModules, argv[2]) {
			return refuse(fmt.Sprintf("%s is allowed only as %s -m pytest or %s -m unittest", name, name, name))
		}
		name += " -m " + argv[2]
	}
	if tier != TierTest {
		return refuse(name + " runs workspace code: it needs --verify test")
	}
	return Decision{Verdict: AllowedSandboxed}
}

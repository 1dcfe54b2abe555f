package deps

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/manifest"
)

// The files core writes into Python's scratch directory: its own form of
// requirements.txt (sandbox/manifest/pipreqs.go), of pyproject.toml's
// requirements, and the runners the toolchain lacks. Nothing of the
// repository's files reaches pip as it is.
const (
	requirementsFile          = "core-requirements.txt"
	pyprojectRequirementsFile = "core-pyproject-requirements.txt"
	runnersRequirementsFile   = "core-runners-requirements.txt"
	// pinnedRequirementsFile holds the versions the run resolved
	// (resolve.go), name==version each, for both sides of the contract.
	pinnedRequirementsFile = "core-pinned-requirements.txt"
	// pipReportFile is what pip's resolution writes (sandbox/manifest/pipreport.go).
	pipReportFile = "core-pip-report.json"
	// constraintsFile holds what the run resolved before, as constraints
	// of a resolution of a changed manifest (lockless.go).
	constraintsFile = "core-constraints.txt"
)

// defaultPipIndex is where pip fetches from when the host names no index.
const defaultPipIndex = "https://pypi.org/simple"

// planPythonDeps is Python's step: wheels only, of what core re-emits of
// requirements.txt (and the files it includes), or else of pyproject.toml's
// dependencies and test extras (sandbox/manifest/pyproject.go), and of the
// runners the toolchain lacks (pytest), installed into a directory of their
// own. pip runs isolated (no configuration file, no PIP_ variable of
// anyone's), with the host's index settings (hostEnv) as its options.
// Requirements that are not all pinned (==) are resolved first
// (resolve.go): the plan resolves, and planned again with the
// versions resolved (pins), it installs exactly those.
func planPythonDeps(read func(...string) (map[string][]byte, error), runners []string, hostEnv []string, pins []byte) (Plan, string, bool, error) {
	files, err := read("requirements.txt", "pyproject.toml")
	if err != nil {
		return Plan{}, "", false, err
	}
	sources, out, note, pinned, err := pythonRequirements(read, files)
	if err != nil {
		return Plan{}, "", false, err
	}
	if len(runners) > 0 {
		sources = append(sources, runnersRequirementsFile)
		out[runnersRequirementsFile] = []byte(strings.Join(runners, "\n") + "\n")
	}
	if len(sources) == 0 {
		return Plan{}, note, false, nil
	}
	resolves := ""
	switch {
	case pins != nil && len(pins) == 0:
		return Plan{}, note, false, nil // resolved to nothing
	case pins != nil:
		// What the run resolved, and nothing else.
		sources, out = []string{pinnedRequirementsFile}, map[string][]byte{pinnedRequirementsFile: pins}
	case !pinned:
		resolves = pipReportFile
	}
	argv := pipArgv(resolves, sources, hostEnv)
	return Plan{
		Eco: "python", Tool: "python3", Files: out, Hosts: pipHosts(argv),
		Resolves: resolves, Resolved: manifest.PipReportPins,
		Argv: argv,
		Env:  []string{"PIP_CONFIG_FILE=/dev/null", "PIP_ROOT_USER_ACTION=ignore", "PYTHONDONTWRITEBYTECODE=1"},
		View: func(dir, _ string) View {
			inside := Inside + "/python"
			// Its bin holds the scripts of what it installed (pytest).
			return View{Binds: []Bind{{Host: filepath.Join(dir, "site"), Inside: inside}}, Env: []string{"PYTHONPATH=" + inside}, Path: []string{inside + "/bin"}, Note: note}
		},
		Failed: pipFailed(sources, runners, note),
	}, "", true, nil
}

// pythonRequirements are the requirements Python's step installs of the
// workspace's requirements.txt (and the files it includes), or else of
// its pyproject.toml: the files core writes of them (out) and their names
// (sources), what it dropped (note), and whether every requirement names
// its version (pinned).
func pythonRequirements(read func(...string) (map[string][]byte, error), files map[string][]byte) ([]string, map[string][]byte, string, bool, error) {
	var sources []string
	note := ""
	out := map[string][]byte{}
	pinned := true // every requirement names its version
	switch {
	case files["requirements.txt"] != nil:
		readOne := func(name string) ([]byte, error) {
			got, err := read(name)
			if err != nil {
				return nil, err
			}
			if got[name] == nil {
				return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
			}
			return got[name], nil
		}
		reqs, dropped, err := manifest.PipRequirements("requirements.txt", readOne)
		if err != nil {
			return nil, nil, "", false, err
		}
		note = manifest.PipDroppedNote("requirements.txt", dropped)
		pinned = manifest.PythonPinned(reqs)
		if len(reqs) > 0 {
			sources = append(sources, requirementsFile)
			out[requirementsFile] = []byte(strings.Join(reqs, "\n") + "\n")
		}
	case files["pyproject.toml"] != nil:
		reqs, dropped, err := manifest.PyprojectRequirements(files["pyproject.toml"])
		if err != nil {
			note = "core fetched no Python dependencies of pyproject.toml: " + err.Error() + "\n"
			break
		}
		note = manifest.PipDroppedNote("pyproject.toml", dropped)
		pinned = manifest.PythonPinned(reqs)
		if len(reqs) > 0 {
			sources = append(sources, pyprojectRequirementsFile)
			out[pyprojectRequirementsFile] = []byte(strings.Join(reqs, "\n") + "\n")
		}
	}
	return sources, out, note, pinned, nil
}

// pipArgv is pip's command line of Python's step: installing the
// requirements of sources into the scratch directory's site, or, when
// the step resolves, writing what it would install to its report.
func pipArgv(resolves string, sources, hostEnv []string) []string {
	where := []string{"--target", ScratchDir + "/site"}
	if resolves != "" {
		// pip resolves, downloads wheels only, installs nothing.
		where = []string{"--dry-run", "--ignore-installed", "--report", pipReportFile}
	}
	argv := slices.Concat([]string{"python3", "-m", "pip", "install", "--isolated", "--disable-pip-version-check", "--no-cache-dir", "--no-input",
		"--only-binary", ":all:", "--no-compile"}, where, pipIndexArgs(hostEnv))
	for _, src := range sources {
		argv = append(argv, "-r", src)
	}
	return argv
}

// pipFailed words a failure of Python's step that installs sources.
func pipFailed(sources, runners []string, note string) func(out string) string {
	return func(out string) string {
		var what []string
		for _, src := range sources {
			switch src {
			case requirementsFile:
				what = append(what, "of requirements.txt")
			case pyprojectRequirementsFile:
				what = append(what, "of the requirements of pyproject.toml")
			case runnersRequirementsFile:
				what = append(what, strings.Join(runners, ", ")+" (which the toolchain lacks)")
			case pinnedRequirementsFile:
				what = append(what, "of the versions resolved for this run")
			}
		}
		return "core fetched no Python dependencies: pip install --only-binary :all: " + strings.Join(what, ", ") + " failed, and core builds nothing from source while the network is on (a package without a wheel needs a source build); the command runs without them:\n" + note + out
	}
}

// pipIndexArgs are pip's options for the host's index settings
// (HostEnvNames): its index, or PyPI's.
func pipIndexArgs(hostEnv []string) []string {
	index := defaultPipIndex
	var more []string
	for _, kv := range hostEnv {
		name, value, _ := strings.Cut(kv, "=")
		flag := ""
		switch name {
		case "PIP_INDEX_URL":
			if value != "" {
				index = value
			}
			continue
		case "PIP_EXTRA_INDEX_URL":
			flag = "--extra-index-url"
		case "PIP_TRUSTED_HOST":
			flag = "--trusted-host"
		case "PIP_FIND_LINKS":
			flag = "--find-links"
		default:
			continue
		}
		for _, v := range strings.Fields(value) {
			more = append(more, flag, v)
		}
	}
	return append([]string{"--index-url", index}, more...)
}

// pipHosts are the hosts pip's options name (its indexes, and find-links
// that are URLs), and PyPI's file host beside PyPI's index.
func pipHosts(argv []string) []string {
	var urls []string
	for i, a := range argv[:len(argv)-1] {
		if a == "--index-url" || a == "--extra-index-url" || a == "--find-links" {
			urls = append(urls, argv[i+1])
		}
	}
	hosts := egress.Hosts(urls...)
	if slices.Contains(hosts, "pypi.org:443") {
		hosts = append(hosts, "files.pythonhosted.org:443")
	}
	return hosts
}

// PythonFetches reports whether Python's dependency step in ws fetches
// the package name.
func PythonFetches(ws, name string) bool {
	plan, _, ok, err := planPythonDeps(func(names ...string) (map[string][]byte, error) { return readManifests(ws, names) }, nil, nil, nil)
	if err != nil || !ok {
		return false
	}
	for _, body := range plan.Files {
		for _, line := range strings.Split(string(body), "\n") {
			if manifest.NormalizePythonName(manifest.RequirementName(strings.TrimSpace(line))) == name {
				return true
			}
		}
	}
	return false
}

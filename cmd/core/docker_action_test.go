package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"gopkg.in/yaml.v3"

	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
)

// TestDockerAction runs the scripts under testdata/docker: the Action's
// image (CORE_DOCKER_IMAGE, built from the real Dockerfile by make
// test-docker) started exactly as the runner starts a Docker action, but on
// the host's network so that the testkit GitHub and model on 127.0.0.1 are
// reachable. Without an engine and the image the test skips, unless
// CORE_REQUIRE_DOCKER=1 (as in make test-docker), which makes it a failure.
func TestDockerAction(t *testing.T) {
	testscript.Run(t, dockerActionParams(t, "testdata/docker", nil))
}

// dockerActionParams are the parameters of scripts that run the Action's
// image (runner-docker) on the toolchain images (the conditions
// python-image, node-image, rust-image), with the registries on loopback;
// env is added to each script's.
func dockerActionParams(t *testing.T, dir string, env map[string]string) testscript.Params {
	t.Helper()
	image := os.Getenv("CORE_DOCKER_IMAGE")
	why := "CORE_DOCKER_IMAGE is not set"
	if image != "" {
		out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", image).CombinedOutput()
		if err == nil {
			why = ""
		} else {
			why = "docker image inspect " + image + ": " + strings.TrimSpace(string(out))
		}
	}
	if why != "" {
		if os.Getenv("CORE_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CORE_REQUIRE_DOCKER=1 but the Action's image is not available: %s", why)
		}
		t.Skipf("the Action's image is not available (set CORE_REQUIRE_DOCKER=1 to make this a failure): %s", why)
	}
	cmds := scriptCmds()
	cmds["runner-docker"] = cmdRunnerDocker
	cmds["siblings-of"] = cmdSiblingsOf
	cmds["registry-serve"] = cmdRegistryServe
	cmds["registry-npm"] = cmdRegistryNpm
	cmds["registry-crate"] = cmdRegistryCrate
	cmds["registry-pytest"] = cmdRegistryPytest
	cmds["registry-requests"] = cmdRegistryRequests
	cmds["expand-env"] = cmdExpandEnv
	images := map[string]string{}
	for _, eco := range []string{"python", "node", "rust"} {
		images[eco+"-image"] = "CORE_TEST_" + strings.ToUpper(eco) + "_IMAGE"
	}
	return testscript.Params{
		Dir: dir,
		Setup: func(e *testscript.Env) error {
			e.Setenv("CORE_DOCKER_IMAGE", image)
			for _, name := range images {
				e.Setenv(name, os.Getenv(name))
			}
			e.Setenv("CORE_SESSION_INFERENCE_URL", "http://127.0.0.1:9/")
			// A run that lands ends, rather than wait for comments.
			e.Setenv("CORE_SESSION_IDLE_TIMEOUT", "0")
			for k, v := range env {
				e.Setenv(k, v)
			}
			e.Values[modelServerKey{}] = &[]*llm.ModelServer{}
			var g *ghfake.GitHub
			e.Values[githubKey{}] = &g
			var apps *ghapps.Apps
			e.Values[appsKey{}] = &apps
			e.Values[registryKey{}] = &registryState{t: e.T().(testing.TB)}
			return nil
		},
		Cmds: cmds,
		Condition: func(cond string) (bool, error) {
			if name, ok := images[cond]; ok {
				// A toolchain image (make test-docker builds them).
				if os.Getenv(name) == "" && os.Getenv("CORE_REQUIRE_DOCKER") == "1" {
					return false, fmt.Errorf("CORE_REQUIRE_DOCKER=1 but %s is not set", name)
				}
				return os.Getenv(name) != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	}
}

// runnerEnv are the variables of the script passed into the container: the
// job's GITHUB_* and RUNNER_* that scripts set, and CORE_* and the
// registries' settings standing for a workflow's env: block. The INPUT_*
// come from action.yml's inputs.
var runnerEnv = []string{
	"GITHUB_EVENT_NAME", "GITHUB_REPOSITORY", "GITHUB_API_URL", "GITHUB_SERVER_URL", "GITHUB_RUN_ID",
	"GITHUB_RUN_ATTEMPT", "GITHUB_ACTOR", "GITHUB_TOKEN", "GITHUB_REF", "GITHUB_SHA", "RUNNER_OS",
	"CORE_SESSION_INFERENCE_URL", "CORE_SESSION_IDLE_TIMEOUT", "CORE_SESSION_VERIFY", "CORE_SESSION_SANDBOX", "CORE_FORGE_ENABLED", "CORE_HOME",
	"npm_config_registry", "CARGO_REGISTRIES_LOCAL_INDEX", "CARGO_NET_GIT_FETCH_WITH_CLI", "PIP_INDEX_URL",
}

// actionInputs reads action.yml's inputs and their defaults: the runner sets
// one INPUT_<NAME> for each, to the workflow's value or the default.
func actionInputs(ts *testscript.TestScript) map[string]string {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "action.yml"))
	ts.Check(err)
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
	}
	ts.Check(yaml.Unmarshal(b, &action))
	in := map[string]string{}
	for name, i := range action.Inputs {
		def := i.Default
		if strings.Contains(def, "${{") {
			def = "" // an expression the runner evaluates; scripts set it
		}
		in["INPUT_"+strings.ToUpper(name)] = def
	}
	return in
}

// runner-docker [ARGS...]: run the Action's image as the runner runs a
// Docker action (actions/runner DockerRun): --rm, --workdir
// /github/workspace, the Docker socket, the home, workflow, file-commands
// and workspace mounts from $WORK/runner, the event at
// /github/workflow/event.json (copied from $GITHUB_EVENT_PATH), the file
// commands in /github/file_commands (copied back to $GITHUB_OUTPUT and
// $GITHUB_STEP_SUMMARY afterwards), HOME=/github/home, no --privileged, no
// security options. Only --network host differs. ARGS default to the
// action.yml's args (action).
//
// runner-docker -d NAME [ARGS...] starts it detached, named NAME, for a test
// that kills it.
func cmdRunnerDocker(ts *testscript.TestScript, neg bool, args []string) {
	var detach []string
	if len(args) >= 2 && args[0] == "-d" {
		detach = []string{"-d", "--name", args[1]}
		args = args[2:]
	}
	if len(args) == 0 {
		args = []string{"action"}
	}
	work := ts.MkAbs("runner/work")
	temp := filepath.Join(work, "_temp")
	dirs := map[string]string{
		filepath.Join(temp, "_github_home"):          "/github/home",
		filepath.Join(temp, "_github_workflow"):      "/github/workflow",
		filepath.Join(temp, "_runner_file_commands"): "/github/file_commands",
		filepath.Join(work, "hello", "hello"):        "/github/workspace",
	}
	for host := range dirs {
		ts.Check(os.MkdirAll(host, 0o755))
	}
	if ev := ts.Getenv("GITHUB_EVENT_PATH"); ev != "" {
		b, err := os.ReadFile(ev)
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(temp, "_github_workflow", "event.json"), b, 0o644))
	}
	fileCommands := filepath.Join(temp, "_runner_file_commands")
	for _, f := range []string{"set_output", "step_summary", "set_env", "add_path", "save_state"} {
		ts.Check(os.WriteFile(filepath.Join(fileCommands, f), nil, 0o644))
	}
	env := actionInputs(ts)
	for k := range env {
		if v := ts.Getenv(k); v != "" {
			env[k] = v
		}
	}
	for _, k := range runnerEnv {
		if v := ts.Getenv(k); v != "" {
			env[k] = v
		}
	}
	for k, v := range map[string]string{
		"HOME":                "/github/home",
		"GITHUB_WORKSPACE":    "/github/workspace",
		"GITHUB_EVENT_PATH":   "/github/workflow/event.json",
		"GITHUB_OUTPUT":       "/github/file_commands/set_output",
		"GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
		"GITHUB_ENV":          "/github/file_commands/set_env",
		"GITHUB_PATH":         "/github/file_commands/add_path",
		"GITHUB_STATE":        "/github/file_commands/save_state",
		"GITHUB_ACTIONS":      "true",
		"CI":                  "true",
		"RUNNER_TEMP":         temp, // its host value, not mounted inside
	} {
		env[k] = v
	}
	argv := append([]string{"run", "--rm", "--network", "host", "--workdir", "/github/workspace",
		"-v", "/var/run/docker.sock:/var/run/docker.sock"}, detach...)
	hosts := make([]string, 0, len(dirs))
	for host := range dirs {
		hosts = append(hosts, host)
	}
	sort.Strings(hosts)
	for _, host := range hosts {
		argv = append(argv, "-v", host+":"+dirs[host])
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		argv = append(argv, "-e", k+"="+env[k])
	}
	argv = append(argv, ts.Getenv("CORE_DOCKER_IMAGE"))
	argv = append(argv, args...)
	err := ts.Exec("docker", argv...)
	if detach != nil {
		if err != nil {
			ts.Fatalf("docker run -d: %v", err)
		}
		return
	}
	for from, to := range map[string]string{"set_output": "GITHUB_OUTPUT", "step_summary": "GITHUB_STEP_SUMMARY"} {
		if dst := ts.Getenv(to); dst != "" {
			b, rerr := os.ReadFile(filepath.Join(fileCommands, from))
			ts.Check(rerr)
			ts.Check(os.WriteFile(dst, b, 0o644))
		}
	}
	if err != nil {
		ts.Logf("[%v]", err)
		if !neg {
			ts.Fatalf("unexpected docker run failure")
		}
		return
	}
	if neg {
		ts.Fatalf("unexpected docker run success")
	}
}

// siblings-of NAME running WORDS | siblings-of NAME none: wait, for at most
// a minute, until a sandbox container of the container NAME runs a command
// holding WORDS (SIBLING_ID is then its id), or until none is left.
func cmdSiblingsOf(ts *testscript.TestScript, neg bool, args []string) {
	if neg || !(len(args) == 3 && args[1] == "running") && !(len(args) == 2 && args[1] == "none") {
		ts.Fatalf("usage: siblings-of NAME running WORDS | siblings-of NAME none")
	}
	// A killed container is gone (--rm): its id from the first call stays.
	parent := ts.Getenv("PARENT_ID")
	if out, err := exec.Command("docker", "inspect", "--format", "{{.Id}}", args[0]).Output(); err == nil {
		parent = strings.TrimSpace(string(out))
	} else if parent == "" {
		ts.Fatalf("siblings-of: no container %s: %v", args[0], err)
	}
	ts.Setenv("PARENT_ID", parent)
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := exec.Command("docker", "ps", "--no-trunc", "--format", "{{.ID}} {{.Command}}",
			"--filter", "label=core.sandbox.parent="+parent, "--filter", "status=running").Output()
		ts.Check(err)
		all, err := exec.Command("docker", "ps", "-a", "-q", "--filter", "label=core.sandbox.parent="+parent).Output()
		ts.Check(err)
		if args[1] == "running" {
			for _, line := range strings.Split(string(out), "\n") {
				if id, cmd, ok := strings.Cut(line, " "); ok && strings.Contains(cmd, args[2]) {
					ts.Setenv("SIBLING_ID", id)
					return
				}
			}
		}
		if args[1] == "none" && len(strings.TrimSpace(string(all))) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("siblings of %s are not %s after a minute: %s", args[0], args[1], all)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

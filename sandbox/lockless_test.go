package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox/deps"
)

// locklessApp is one ecosystem's repository without a lockfile, for
// TestDependencyStepWithoutLockfile.
type locklessApp struct {
	name    string
	tool    string                            // the toolchain's program the test needs
	hostEnv func(*registry.Registry) []string // the registry's settings
	// publish publishes the package greet at version, whose code says
	// "greet@<version>", and the package other.
	publish func(reg *registry.Registry, version string)
	// files are the repository's, depending on greet (any 1.x) and, with
	// other, on other too; argv prints what greet says.
	files    func(other bool) map[string]string
	argv     []string
	lockName string // the lockfile the step resolves, never in the workspace
}

func locklessApps() []locklessApp {
	return []locklessApp{
		{
			name: "npm", tool: "npm", lockName: "package-lock.json",
			hostEnv: func(reg *registry.Registry) []string { return []string{"npm_config_registry=" + reg.NpmURL()} },
			publish: func(reg *registry.Registry, version string) {
				reg.AddNpm("greet", version, map[string]string{"index.js": "exports.says = 'greet@" + version + "';\n"})
				reg.AddNpm("other", "1.0.0", map[string]string{"index.js": "exports.says = 'other';\n"})
			},
			files: func(other bool) map[string]string {
				deps := `"greet":"^1.0.0"`
				if other {
					deps += `,"other":"^1.0.0"`
				}
				return map[string]string{
					// A library's: no lockfile. Its scripts fail if they
					// run; its .npmrc points elsewhere, enables scripts
					// and turns the lockfile off: none of it may reach the
					// resolver.
					"package.json": `{"name":"app","version":"1.0.0","dependencies":{` + deps + `},` +
						`"scripts":{"preinstall":"exit 3","postinstall":"exit 4","test":"node -e \"console.log(require('greet').says)\""}}`,
					".npmrc": "registry=http://127.0.0.1:9/elsewhere/\nignore-scripts=false\npackage-lock=false\n",
				}
			},
			argv: []string{"npm", "test"},
		},
		{
			name: "pip", tool: "python3", lockName: "core-pip-report.json", // deps.pipReportFile
			hostEnv: func(reg *registry.Registry) []string { return []string{"PIP_INDEX_URL=" + reg.SimpleURL()} },
			publish: func(reg *registry.Registry, version string) {
				reg.AddWheel("greet", version, map[string]string{"greet/__init__.py": "SAYS = 'greet@" + version + "'\n"})
				reg.AddWheel("other", "1.0.0", map[string]string{"other/__init__.py": "SAYS = 'other'\n"})
			},
			files: func(other bool) map[string]string {
				deps := `"greet>=1.0"`
				if other {
					deps += `, "other"`
				}
				return map[string]string{"pyproject.toml": "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [" + deps + "]\n"}
			},
			argv: []string{"python3", "-c", "import greet; print(greet.SAYS)"},
		},
		{
			name: "cargo", tool: "cargo", lockName: "Cargo.lock",
			hostEnv: func(reg *registry.Registry) []string {
				return []string{"CARGO_REGISTRIES_LOCAL_INDEX=" + reg.CargoGitIndex(), "CARGO_NET_GIT_FETCH_WITH_CLI=true"}
			},
			publish: func(reg *registry.Registry, version string) {
				reg.AddCrate("greet", version, map[string]string{"src/lib.rs": "pub const SAYS: &str = \"greet@" + version + "\";\n"})
				reg.AddCrate("other", "1.0.0", map[string]string{"src/lib.rs": "pub const SAYS: &str = \"other\";\n"})
			},
			files: func(other bool) map[string]string {
				deps := "greet = { version = \"1\", registry = \"local\" }\n"
				if other {
					deps += "other = { version = \"1\", registry = \"local\" }\n"
				}
				return map[string]string{
					"Cargo.toml":  "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n" + deps,
					"src/main.rs": "fn main() {\n    println!(\"{}\", greet::SAYS);\n}\n",
				}
			},
			argv: []string{"cargo", "run", "-q", "--offline"},
		},
	}
}

// TestDependencyStepWithoutLockfile: a repository without a lockfile gets
// its dependencies, resolved by core from the manifest, and no lockfile
// lands in the workspace. The run's resolution is kept: the checkouts of
// the same run (the baseline's and the result's, seen at the workspace's
// path) install the same version after the registry publishes a newer
// one, a result that adds a dependency keeps the versions resolved
// before, and only another run gets the newer version.
func TestDependencyStepWithoutLockfile(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	for _, app := range locklessApps() {
		t.Run(app.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.NewRegistry(t)
			sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
				HostEnv: app.hostEnv(reg)})
			requireTool(t, sb, app.tool)
			app.publish(reg, "1.0.0")
			ws := newWorkspace(t)
			writeFiles(t, ws, app.files(false))
			p := sb.Probe(t.Context())
			require.True(t, p.Usable)
			var progress ghfake.LockedBuffer
			side := func(dir, says string) {
				t.Helper()
				// The step alone first: the command itself may write a
				// lockfile (cargo does), the step never.
				v, err := sb.fetchDeps(t.Context(), p.chosen(), p.Bwrap, app.argv, RunOptions{Workspace: dir, MountAt: ws, NoBox: true, Progress: &progress})
				require.NoError(t, err)
				require.Empty(t, v.Note)
				assert.NoFileExists(t, filepath.Join(dir, app.lockName), "the resolved lockfile is the run's, not the workspace's")
				r, err := sb.Run(t.Context(), app.argv, RunOptions{Workspace: dir, MountAt: ws, NoBox: true, Timeout: 5 * time.Minute})
				require.NoError(t, err)
				require.Equal(t, 0, r.ExitCode, r.Output)
				assert.Contains(t, r.Output, says, "the command sees the version resolved for the run")
			}

			base := newWorkspace(t)
			writeFiles(t, base, app.files(false))
			side(base, "greet@1.0.0")

			eco := deps.EcoName(map[string]string{"npm": "node", "pip": "python", "cargo": "rust"}[app.name])
			assert.Contains(t, progress.String(), "Resolving the "+eco+" dependencies: there is no lockfile", "the step says what it waits for")
			assert.Regexp(t, `Resolved 1 `+eco+` package in [0-9.]+m?s, kept for this run's checks on both sides.\n`, progress.String())
			assert.Regexp(t, `Fetching 1 `+eco+` package for the command \(`, progress.String())
			assert.Regexp(t, `Fetched 1 `+eco+` package in [0-9.]+m?s.\n`, progress.String())

			app.publish(reg, "1.1.0")
			asked := len(reg.Requests())
			result := newWorkspace(t)
			writeFiles(t, result, app.files(false))
			side(result, "greet@1.0.0")
			assert.Len(t, reg.Requests(), asked, "the result's side resolves nothing again and fetches nothing again")

			changed := newWorkspace(t)
			writeFiles(t, changed, app.files(true))
			side(changed, "greet@1.0.0")

			other := newWorkspace(t)
			writeFiles(t, other, app.files(false))
			r, err := sb.Run(t.Context(), app.argv, RunOptions{Workspace: other, NoBox: true, Timeout: 5 * time.Minute})
			require.NoError(t, err)
			require.Equal(t, 0, r.ExitCode, r.Output)
			assert.Contains(t, r.Output, "greet@1.1.0", "another run resolves afresh")
		})
	}
}

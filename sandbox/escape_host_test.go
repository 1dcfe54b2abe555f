package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/lang"
)

// hostSecret is what /etc/shadow holds on every Linux host: root's entry.
const hostSecret = "root:"

// plantings are the files a hostile repository (or code it ran) leaves where
// core reads module files on the host.
var plantings = []struct {
	name   string
	host   func(t *testing.T, ws string) // planted by the repository, before
	inside string                        // planted by confined code, between two commands
	want   string                        // what core's refusal says
}{
	{
		name: "go.mod links to /etc/shadow",
		host: func(t *testing.T, ws string) {
			require.NoError(t, os.Symlink("/etc/shadow", filepath.Join(ws, "go.mod")))
		},
		inside: "ln -s /etc/shadow go.mod",
		want:   "symbolic link",
	},
	{
		name:   "go.mod is a FIFO",
		host:   func(t *testing.T, ws string) { require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "go.mod"), 0o644)) },
		inside: "mkfifo go.mod",
		want:   "a FIFO",
	},
	{
		name: "go.mod links to /dev/zero",
		host: func(t *testing.T, ws string) {
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(ws, "go.mod")))
		},
		inside: "ln -s /dev/zero go.mod",
		want:   "symbolic link",
	},
	{
		name: "go.sum is 1 GiB",
		host: func(t *testing.T, ws string) {
			writeGoMod(t, ws)
			require.NoError(t, os.WriteFile(filepath.Join(ws, "go.sum"), nil, 0o644))
			require.NoError(t, os.Truncate(filepath.Join(ws, "go.sum"), 1<<30))
		},
		inside: "printf 'module example.com/m\\n\\ngo 1.21\\n' > go.mod && truncate -s 5M go.sum", // 1 GiB is past the file size limit
		want:   "more than the 4194304 core reads",
	},
	{
		name: "go.work uses a module behind a link to /etc",
		host: func(t *testing.T, ws string) {
			require.NoError(t, os.WriteFile(filepath.Join(ws, "go.work"), []byte("go 1.21\n\nuse ./etc\n"), 0o644))
			require.NoError(t, os.Symlink("/etc", filepath.Join(ws, "etc")))
		},
		inside: "printf 'go 1.21\\n\\nuse ./etc\\n' > go.work && ln -s /etc etc",
		want:   "symbolic link",
	},
	{
		name: "go.work uses a module outside the workspace",
		host: func(t *testing.T, ws string) {
			require.NoError(t, os.WriteFile(filepath.Join(ws, "go.work"), []byte("go 1.21\n\nuse ../../etc\n"), 0o644))
		},
		inside: "printf 'go 1.21\\n\\nuse ../../etc\\n' > go.work",
		want:   "outside the workspace",
	},
}

func writeGoMod(t *testing.T, ws string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644))
}

// assertRefused checks that core neither hung, nor read the host's secret,
// nor ran the go command past the refusal.
func assertRefused(t *testing.T, r Result, err error, want string) {
	t.Helper()
	require.NoError(t, err, "the host step hung or failed instead of refusing")
	assert.NotEqual(t, 0, r.ExitCode, r.Output)
	assert.NotContains(t, r.Output, hostSecret, "a host file reached the command's output")
	assert.Contains(t, r.Output, want)
}

// Attack: the repository plants a link, FIFO, device or huge file where the
// module download reads go.mod, go.sum or go.work; before the fix the host
// printed /etc/shadow, hung for ever, or ran out of memory.
func TestEscapeModuleFilesPlantedByTheRepository(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	for _, tt := range plantings {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			tt.host(t, ws)
			sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}})
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			r, err := sb.Run(ctx, []string{"go", "vet", "./..."}, RunOptions{Workspace: ws})
			assertRefused(t, r, err, tt.want)
		})
	}
}

// Attack: confined code plants the same files, for the host step before the
// next command to trip over.
func TestEscapeModuleFilesPlantedByConfinedCode(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	for _, tt := range plantings {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}})
			r := runIn(t, sb, ws, tt.inside)
			require.Equal(t, 0, r.ExitCode, r.Output)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			r, err := sb.Run(ctx, []string{"go", "vet", "./..."}, RunOptions{Workspace: ws})
			assertRefused(t, r, err, tt.want)
		})
	}
}

// Attack: the same files, when the sandbox is off and build-tier commands
// run on the host: the go command must not get to read them.
func TestEscapeModuleFilesOnTheHost(t *testing.T) {
	t.Parallel()
	for _, tt := range plantings {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			tt.host(t, ws)
			sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}})
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			for _, argv := range [][]string{{"go", "vet", "./..."}, {"go", "mod", "tidy"}} {
				r, err := sb.Verify(ctx, lang.TierBuild, argv, RunOptions{Workspace: ws})
				assertRefused(t, r, err, tt.want)
				assert.False(t, r.Sandboxed)
			}
		})
	}
}

// Attack: with no .git in the workspace, confined code makes .git a link to
// a private host directory, hoping the next command binds it read-only.
func TestEscapeGitLinkPlantedByConfinedCode(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	secret := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(secret, "token"), []byte("private-host-file"), 0o644))
	ws := t.TempDir()
	sb := newTestSandbox(t, ModeBwrap)
	r := runIn(t, sb, ws, "ln -s "+secret+" .git")
	require.Equal(t, 0, r.ExitCode, r.Output)
	r = runIn(t, sb, ws, "cat .git/token; ls .git/ 2>/dev/null")
	assert.NotContains(t, r.Output, "private-host-file")
	assert.NotContains(t, r.Output, "\ntoken\n", "the private directory is listed")
}

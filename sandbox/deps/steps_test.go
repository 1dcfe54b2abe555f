package deps

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRunner runs a step by writing into its scratch directory, or by
// failing, and records what it was asked.
type fakeRunner struct {
	exit   int
	output string

	mu    sync.Mutex
	steps []string // each step's argv[0]
}

func (f *fakeRunner) Scratch(files map[string][]byte) (string, error) {
	dir, err := os.MkdirTemp("", "core-steps-test-")
	if err != nil {
		return "", err
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o600); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func (f *fakeRunner) Step(_ context.Context, plan Plan, scratch string) (int, string, error) {
	f.mu.Lock()
	f.steps = append(f.steps, plan.Argv[0])
	f.mu.Unlock()
	if f.exit == 0 {
		if err := os.MkdirAll(filepath.Join(scratch, "site"), 0o755); err != nil {
			return 0, "", err
		}
	}
	return f.exit, f.output, nil
}

func (f *fakeRunner) ran() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.steps)
}

// imagedRunner is a fakeRunner whose steps run in an image, and whose
// fetched directory is kept read-only.
type imagedRunner struct {
	*fakeRunner
	image string
	kept  []string
}

func (r *imagedRunner) Image(context.Context, string) (string, error) { return r.image, nil }

func (r *imagedRunner) Keep(dir string) error {
	r.kept = append(r.kept, dir)
	return os.Chmod(dir, 0o755)
}

// pythonWorkspace is a workspace whose requirements are pinned: a plan
// that fetches, with nothing to resolve.
func pythonWorkspace(t *testing.T) string {
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "requirements.txt"), []byte("greet==1.0.0\n"), 0o600))
	return ws
}

// TestStepsFetch: a step runs once per lockfile; what it fetched is kept
// in the cache and seen from there, what it failed with is said again
// without running it again; no runner or no cache fetches nothing.
func TestStepsFetch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		runner  *fakeRunner
		noCache bool
		nilRun  bool
		note    string // what the View says, both times
		ran     int    // steps run by two Fetches
		kept    bool   // a directory under the cache
	}{
		{name: "fetched", runner: &fakeRunner{}, ran: 1, kept: true},
		{name: "failed", runner: &fakeRunner{exit: 1, output: "ERROR: no such version\n"}, note: "ERROR: no such version", ran: 1},
		{name: "no runner", runner: &fakeRunner{}, nilRun: true, note: "needs bwrap's network profile or the Docker backend"},
		{name: "no cache", runner: &fakeRunner{}, noCache: true, note: "no state directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := pythonWorkspace(t)
			var progress bytes.Buffer
			var waited []string
			req := Request{Tool: "python3", Workspace: ws, Inside: ws, Progress: &progress,
				Waiting: func(what string) func() { waited = append(waited, what); return func() {} }}
			if !tt.noCache {
				req.Cache = t.TempDir()
			}
			var r Runner = tt.runner
			if tt.nilRun {
				r = nil
			}
			var st Steps
			for range 2 {
				v, err := st.Fetch(t.Context(), r, req)
				require.NoError(t, err)
				if tt.note == "" {
					assert.Empty(t, v.Note)
					require.Len(t, v.Binds, 1)
					assert.DirExists(t, v.Binds[0].Host)
				} else {
					assert.Contains(t, v.Note, tt.note)
					assert.Empty(t, v.Binds)
				}
			}
			assert.Equal(t, tt.ran, tt.runner.ran(), "steps run by two Fetches")
			assert.Len(t, waited, tt.ran, "each step run is a wait told to the heartbeat")
			if tt.ran > 0 {
				assert.Contains(t, progress.String(), "Fetching 1 Python package for the command (python3 ")
			}
			if req.Cache != "" {
				kept, err := filepath.Glob(filepath.Join(req.Cache, "python-*"))
				require.NoError(t, err)
				assert.Equal(t, tt.kept, len(kept) == 1, "kept: %v", kept)
			}
		})
	}
}

// TestStepsFetchKeyedByImage: what a step fetched in one image is that
// image's: another image fetches again, into a directory of its own, kept
// read-only.
func TestStepsFetchKeyedByImage(t *testing.T) {
	t.Parallel()
	ws := pythonWorkspace(t)
	cache := t.TempDir()
	var st Steps
	fake := &fakeRunner{}
	for _, image := range []string{"python:3.12", "python:3.13", "python:3.12"} {
		r := &imagedRunner{fakeRunner: fake, image: image}
		v, err := st.Fetch(t.Context(), r, Request{Tool: "python3", Workspace: ws, Inside: ws, Cache: cache})
		require.NoError(t, err)
		require.Len(t, v.Binds, 1)
	}
	assert.Equal(t, 2, fake.ran(), "one step per image")
	kept, err := filepath.Glob(filepath.Join(cache, "python-*"))
	require.NoError(t, err)
	require.Len(t, kept, 2)
	for _, dir := range kept {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "kept read-only for everyone")
	}
}

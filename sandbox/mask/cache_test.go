package mask

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretTree makes a root to scan with one file others may not read.
func secretTree(t *testing.T) (root, secret string) {
	t.Helper()
	root = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "conf"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "conf", "public"), []byte("x"), 0o644))
	secret = filepath.Join(root, "conf", "key")
	require.NoError(t, os.WriteFile(secret, []byte("x"), 0o600))
	return root, secret
}

func TestScanCache(t *testing.T) {
	t.Parallel()
	c := CurrentCred()
	tests := []struct {
		name string
		// spoil changes the host or the cache file after the first scan.
		spoil func(t *testing.T, root, file string)
		walks int // walks of the second, fresh cache
	}{
		{name: "hit", walks: 0},
		{name: "a root changed", walks: 1, spoil: func(t *testing.T, root, _ string) {
			later := time.Now().Add(time.Hour)
			require.NoError(t, os.Chtimes(root, later, later))
		}},
		{name: "a directory under a root changed", walks: 1, spoil: func(t *testing.T, root, _ string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "conf", "new"), nil, 0o600))
		}},
		{name: "corrupt", walks: 1, spoil: func(t *testing.T, _, file string) {
			require.NoError(t, os.WriteFile(file, []byte(`{"version":2,"key":`), 0o600))
		}},
		{name: "another key", walks: 1, spoil: func(t *testing.T, _, file string) {
			require.NoError(t, os.WriteFile(file, []byte(`{"version":2,"key":"0","files":[],"dirs":[]}`), 0o600))
		}},
		{name: "readable by others", walks: 1, spoil: func(t *testing.T, _, file string) {
			require.NoError(t, os.Chmod(file, 0o644))
		}},
		{name: "a link", walks: 1, spoil: func(t *testing.T, _, file string) {
			moved := file + ".moved"
			require.NoError(t, os.Rename(file, moved))
			require.NoError(t, os.Symlink(moved, file))
		}},
		{name: "a relative path", walks: 1, spoil: func(t *testing.T, _, file string) {
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			var sf scanFile
			require.NoError(t, json.Unmarshal(b, &sf))
			sf.Files = append(sf.Files, "../etc/shadow")
			require.NoError(t, os.Remove(file))
			require.NoError(t, writeScan(file, sf))
		}},
		{name: "another user's", walks: 1, spoil: func(t *testing.T, _, file string) {
			testkit.RequireRoot(t, "giving a file away needs root")
			require.NoError(t, os.Chown(file, 65534, 65534))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, secret := secretTree(t)
			dir := filepath.Join(t.TempDir(), "rootonly")
			first := NewCache()
			ro := first.Scan(dir, []string{root}, c)
			require.Equal(t, []string{secret}, ro.Files)
			require.Equal(t, 1, first.walks)
			assert.Equal(t, ro, first.Scan(dir, []string{root}, c), "the same cache answers from memory")
			assert.Equal(t, 1, first.walks)
			file := filepath.Join(dir, scanName([]string{root}))
			fi, err := os.Lstat(file)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			if tt.spoil != nil {
				tt.spoil(t, root, file)
			}
			second := NewCache()
			got := second.Scan(dir, []string{root}, c)
			assert.Equal(t, tt.walks, second.walks)
			assert.Contains(t, got.Files, secret, "the secret is masked, from the cache or a new walk")
			if tt.walks == 1 {
				again := NewCache()
				again.Scan(dir, []string{root}, c)
				assert.Equal(t, 0, again.walks, "the new walk was stored")
			}
		})
	}
}

// A key change follows the roots and who scans them, and each set of roots
// has its own file.
func TestScanKey(t *testing.T) {
	t.Parallel()
	a, _ := secretTree(t)
	b, _ := secretTree(t)
	c := CurrentCred()
	ka, err := scanKey([]string{a}, c)
	require.NoError(t, err)
	kb, err := scanKey([]string{b}, c)
	require.NoError(t, err)
	assert.NotEqual(t, ka, kb)
	other, err := scanKey([]string{a}, Cred{uid: c.uid + 1, groups: c.groups})
	require.NoError(t, err)
	assert.NotEqual(t, ka, other)
	again, err := scanKey([]string{a}, c)
	require.NoError(t, err)
	assert.Equal(t, ka, again)
	assert.NotEqual(t, scanName([]string{a}), scanName([]string{b}))
	_, err = scanKey([]string{filepath.Join(a, "missing")}, c)
	assert.Error(t, err)
}

// Processes that start at once each walk and write; each file they rename
// into place is whole, and every one of them reads the same answer.
func TestScanCacheConcurrentWriters(t *testing.T) {
	t.Parallel()
	root, secret := secretTree(t)
	dir := filepath.Join(t.TempDir(), "rootonly")
	c := CurrentCred()
	results := make([]RootOnly, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = NewCache().Scan(dir, []string{root}, c)
		}()
	}
	wg.Wait()
	for _, r := range results {
		assert.Equal(t, []string{secret}, r.Files)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	key, err := scanKey([]string{root}, c)
	require.NoError(t, err)
	ro, ok := readScan(filepath.Join(dir, entries[0].Name()), key)
	require.True(t, ok)
	assert.Equal(t, []string{secret}, ro.Files)
}

// Without a state directory nothing is written, and the walk still runs.
func TestScanCacheNoDir(t *testing.T) {
	t.Parallel()
	root, secret := secretTree(t)
	sc := NewCache()
	assert.Equal(t, []string{secret}, sc.Scan("", []string{root}, CurrentCred()).Files)
	assert.Equal(t, 1, sc.walks)
}

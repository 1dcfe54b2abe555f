package mask

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
)

// The walk behind the masks touches every file under /usr and /etc: seconds
// on a cold page cache, paid by the first confined command of every
// process. Its answer changes only when the host does, so it is kept in
// memory for the process and on disk under $CORE_HOME/cache/rootonly, which
// confined code never sees, keyed by what it describes: the roots walked,
// who walks them, the mount table, the boot, and cheap change signals of the
// trees (the times of each root and of the directories right under it, and
// of the package databases). A file created deep in a tree after a walk, by
// other means than a package manager, stays visible until one of those
// changes: docs/sandbox.md (The profile) says so.

// scanVersion changes with the scan's rules, so that what an older core
// wrote is not read.
const scanVersion = 2

// maxScanFile bounds the cache file core reads.
const maxScanFile = 64 << 20

// packageDBs change when packages are installed or removed.
var packageDBs = []string{
	"/var/lib/dpkg/status", "/var/lib/dpkg/info",
	"/var/lib/rpm", "/usr/lib/sysimage/rpm",
	"/lib/apk/db/installed", "/var/lib/pacman/local",
}

// scanFile is the cache file's content.
type scanFile struct {
	Version int    `json:"version"`
	Key     string `json:"key"`
	RootOnly
}

// Cache remembers walks, in memory and on disk. Safe for concurrent
// use; each key is walked at most once per cache.
type Cache struct {
	mu   sync.Mutex
	keys map[string]*scanEntry
	// walks counts the walks made, for the tests.
	walks int
}

type scanEntry struct {
	once sync.Once
	ro   RootOnly
}

func NewCache() *Cache { return &Cache{keys: map[string]*scanEntry{}} }

// hostScans is the process's scan cache. Like the walk it replaces, it holds
// facts about the host, not state: an entry is a pure function of its key.
var hostScans = NewCache()

// Host returns the process's scan cache.
func Host() *Cache { return hostScans }

// Walks returns how many walks the cache made, for the tests.
func (sc *Cache) Walks() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.walks
}

// Scan returns what confined code, as c, could read under roots that others
// may not: from memory, else from the file in dir (when dir is set), else
// by a walk whose answer it stores in both.
func (sc *Cache) Scan(dir string, roots []string, c Cred) RootOnly {
	key, err := scanKey(roots, c)
	if err != nil {
		key = "" // no key: walk, and store nothing on disk
	}
	sc.mu.Lock()
	e, ok := sc.keys[key]
	if !ok || key == "" {
		e = &scanEntry{}
		if key != "" {
			sc.keys[key] = e
		}
	}
	sc.mu.Unlock()
	e.once.Do(func() {
		file := ""
		if dir != "" && key != "" {
			file = filepath.Join(dir, scanName(roots))
			if ro, ok := readScan(file, key); ok {
				e.ro = ro
				return
			}
		}
		sc.mu.Lock()
		sc.walks++
		sc.mu.Unlock()
		e.ro = scanRootOnly(roots, c)
		if file != "" {
			_ = writeScan(file, scanFile{Version: scanVersion, Key: key, RootOnly: e.ro})
		}
	})
	return e.ro
}

// scanName names the cache file of a set of roots.
func scanName(roots []string) string {
	h := sha256.New()
	for _, r := range roots {
		fmt.Fprintf(h, "%q\n", r)
	}
	return hex.EncodeToString(h.Sum(nil))[:24] + ".json"
}

// scanKey digests what a walk of roots depends on. It fails when the mount
// table or the roots cannot be read: then nothing is cached.
func scanKey(roots []string, c Cred) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "core rootonly %d\nuid %d groups %v\n", scanVersion, c.uid, c.groups)
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("read the mount table: %w", err)
	}
	fmt.Fprintf(h, "mounts %d\n%s\n", len(mounts), mounts)
	if boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		fmt.Fprintf(h, "boot %s\n", boot)
	}
	for _, r := range roots {
		fmt.Fprintf(h, "root %q\n", r)
		if err := stamp(h, r); err != nil {
			return "", err
		}
		entries, err := os.ReadDir(r)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", r, err)
		}
		for _, e := range entries {
			if e.IsDir() {
				_ = stamp(h, filepath.Join(r, e.Name()))
			}
		}
	}
	for _, db := range packageDBs {
		if stamp(h, db) != nil {
			fmt.Fprintf(h, "%s absent\n", db)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stamp writes a path's change signals: device, inode, mode, owner, size,
// and its modification and change times to the nanosecond.
func stamp(h hash.Hash, p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("stat %s: no system data", p)
	}
	fmt.Fprintf(h, "%q %d %d %o %d:%d %d %d.%d %d.%d\n", p, st.Dev, st.Ino, st.Mode, st.Uid, st.Gid, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
	return nil
}

// readScan reads a cache file, and says whether it holds the answer for
// key. Anything odd is a miss: a link, not a regular file, owned by another
// user, readable or writable by others, too large, not JSON, another
// version or key, or a path outside what the key's roots could name.
func readScan(file, key string) (RootOnly, bool) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return RootOnly{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 || fi.Size() > maxScanFile {
		return RootOnly{}, false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return RootOnly{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxScanFile+1))
	if err != nil || len(b) > maxScanFile {
		return RootOnly{}, false
	}
	var sf scanFile
	if json.Unmarshal(b, &sf) != nil || sf.Version != scanVersion || sf.Key != key {
		return RootOnly{}, false
	}
	for _, p := range slices.Concat(sf.Files, sf.Dirs) {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || p == "/" {
			return RootOnly{}, false
		}
	}
	return sf.RootOnly, true
}

// writeScan writes a cache file atomically: a temporary file of mode 0600
// in the same directory, renamed over the old one. Concurrent writers each
// rename a whole file; the last one wins.
func writeScan(file string, sf scanFile) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the scan cache: %w", err)
	}
	b, err := json.Marshal(sf)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".scan-*")
	if err != nil {
		return fmt.Errorf("write the scan cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is left to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write the scan cache: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write the scan cache: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write the scan cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the scan cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("write the scan cache: %w", err)
	}
	return nil
}

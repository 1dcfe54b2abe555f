package gocache

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coreagent/core/internal/filetree"
)

// The sandbox's build cache is two layers, so that no confined command can
// change what another run builds:
//
//   - the run's layer ($CORE_HOME/cache/go-build-run/<key>/layer, keyed by
//     the workspace and by the Sandbox, so one per run, removed when the
//     Sandbox is garbage, and swept once its process has ended or its
//     workspace is gone) is the only build cache a confined command may
//     write: GOCACHE names it, and the cache program inside
//     (prog.go) writes every put there;
//   - the shared layer of the repository ($CORE_HOME/cache/go-build-shared/
//     <sha256 of the repository, 16 hex digits>) is what later runs of that
//     repository read. It is bound read-only into every confined command,
//     and only core, on the host, writes it: after a command in which no
//     workspace code ran (CompilesOnly: the warm-up's go test
//     -exec=/bin/true, and go build, vet or list with harmless flags),
//     judged by the argv core itself launched, never by anything the
//     sandbox says, core promotes the entries that command's go put.
//
// The cache program tells core, over the command's own socket, each action
// ID and output ID it put; core takes nothing else from the sandbox. It
// reads the output from the run's layer through an os.Root, refusing
// anything but a regular file of the announced size, hashes it while it
// copies it into the shared layer and keeps it only when the hash is the
// output ID (the go command names an output by the SHA-256 of its bytes),
// and writes the action's entry itself. A test-tier command's puts, and
// anything a confined command writes into the run's layer, never reach the
// shared layer. A go older than 1.24 (no GOCACHEPROG), and the Docker
// backend, use the run's layer alone: nothing of theirs is shared.
//
// Entries derived from a poisoned entry of the run's own layer (planted by
// an earlier test of the same run) may be promoted, but the go command keys
// every action by the content of its inputs, so those entries sit under
// action IDs that no build from clean inputs ever asks for.

// Where the sandbox sees the shared layer.
const SharedPath = "/run/core/gocache-shared"

// maxPromoted bounds the puts of one command core promotes.
const maxPromoted = 1 << 16

// LegacyBuildCache is the build cache every confined command once wrote:
// it may be poisoned, so it is removed and never bound again.
const LegacyBuildCache = "go-build-sandbox"

// Run returns the run's writable layer of the build cache for the
// workspace ws, made on the Sandbox's first command there; the Sandbox's
// first call sweeps the layers no live run owns.
func (r *Layers) Run(ws string) (string, error) {
	if r.home == "" {
		return "", errors.New("no state directory ($CORE_HOME) configured")
	}
	runs := filepath.Join(r.home, "cache", "go-build-run")
	r.sweepOnce.Do(func() { sweepRunLayers(runs, filepath.Join(r.home, "cache", LegacyBuildCache)) })
	// Keyed by the workspace and by this Sandbox: another run in the same
	// workspace (a resume, another process) never finds this layer, nor
	// does a cache restored from elsewhere hold one of this name.
	sum := sha256.Sum256([]byte(ws))
	dir := filepath.Join(runs, hex.EncodeToString(sum[:8])+"-"+r.nonce)
	layer := filepath.Join(dir, "layer")
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.Contains(r.dirs, dir) {
		return layer, nil
	}
	if err := os.MkdirAll(layer, 0o700); err != nil {
		return "", fmt.Errorf("make the run's build cache: %w", err)
	}
	// Beside the layer, out of the sandbox's sight: whose layer it is,
	// each file whole when it appears (another Sandbox's sweep may read it
	// at any moment: an empty owner would be a dead one).
	for name, body := range map[string]string{"workspace": ws, "owner": thisProcess()} {
		if err := writeWhole(filepath.Join(dir, name), body); err != nil {
			return "", fmt.Errorf("make the run's build cache: %w", err)
		}
	}
	r.dirs = append(r.dirs, dir)
	return layer, nil
}

// Layers are the run layers a Sandbox made under its state directory
// home; they go when it does.
type Layers struct {
	home      string
	nonce     string
	sweepOnce sync.Once // the run layers no live run owns
	mu        sync.Mutex
	dirs      []string
}

// NewLayers returns the run layers of a new Sandbox, owner, under its
// state directory home, which are removed once the Sandbox is garbage: a
// long-lived process (the bot) makes one Sandbox a run.
func NewLayers[T any](owner *T, home string) *Layers {
	r := &Layers{home: home, nonce: strings.ToLower(rand.Text()[:12])}
	runtime.AddCleanup(owner, func(r *Layers) {
		r.mu.Lock()
		defer r.mu.Unlock()
		// Off the cleanup goroutine, which others wait on.
		go func(dirs []string) {
			for _, d := range dirs {
				RemoveTree(d)
			}
		}(slices.Clone(r.dirs))
	}, r)
	return r
}

// thisProcess names this process so that a later one can tell whether it
// still runs: its pid and its start time in clock ticks after boot.
func thisProcess() string {
	return fmt.Sprintf("%d %s", os.Getpid(), procStart(os.Getpid()))
}

// procStart is field 22 of /proc/<pid>/stat, the process's start time; ""
// when there is no such process.
func procStart(pid int) string {
	var buf [1024]byte
	b, err := readSmall(fmt.Sprintf("/proc/%d/stat", pid), buf[:])
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// ownerAlive reports whether the process an owner file names still runs.
func ownerAlive(owner string) bool {
	pidText, start, ok := strings.Cut(strings.TrimSpace(owner), " ")
	pid, err := strconv.Atoi(pidText)
	return ok && err == nil && pid > 0 && start != "" && procStart(pid) == start
}

// staleRunLayer is how long a run's layer whose owner cannot be told is
// kept (it may be being made).
const staleRunLayer = 24 * time.Hour

// sweepRunLayers removes the run layers whose process has ended or whose
// workspace is gone, and the legacy shared cache.
func sweepRunLayers(runs, legacy string) {
	if _, err := os.Lstat(legacy); err == nil {
		RemoveTree(legacy)
	}
	entries, err := os.ReadDir(runs)
	if err != nil {
		return
	}
	for _, e := range entries {
		dir := filepath.Join(runs, e.Name())
		var wbuf, obuf [4096]byte
		ws, err1 := readSmall(filepath.Join(dir, "workspace"), wbuf[:])
		owner, err2 := readSmall(filepath.Join(dir, "owner"), obuf[:])
		if err1 != nil || err2 != nil || len(ws) == 0 || len(owner) == 0 {
			if fi, err := os.Lstat(dir); err == nil && time.Since(fi.ModTime()) < staleRunLayer {
				continue // being made
			}
		} else if _, err := os.Lstat(string(ws)); err == nil && ownerAlive(string(owner)) {
			continue
		}
		RemoveTree(dir)
	}
}

// writeWhole writes body to path through a temporary file renamed into
// place, so that a reader sees all of it or no file.
func writeWhole(path, body string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// RemoveTree removes a tree confined code may have written
// (filetree.Remove), best effort: what is left is swept later.
func RemoveTree(dir string) { _ = filetree.Remove(dir) }

// SharedLayer returns the shared layer of the repository repo under the
// state directory home, made if missing; "" when the Sandbox knows no
// repository.
func SharedLayer(home, repo string) string {
	dir := SharedDir(home, repo)
	if dir == "" {
		return ""
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}

// SharedDir is where the shared layer of the repository repo lives under
// the state directory home: "" when either is unknown, so that a Sandbox
// with no repository shares no build cache with any other run.
func SharedDir(home, repo string) string {
	key := RepoKey(repo)
	if key == "" || home == "" {
		return ""
	}
	return filepath.Join(home, "cache", "go-build-shared", key)
}

// RepoKey names a repository's shared layer: 16 hex digits of the SHA-256
// of its name (owner/name, case folded, or a local path); "" for none.
func RepoKey(repo string) string {
	repo = strings.TrimSpace(repo)
	if repo == "" {
		return ""
	}
	if !filepath.IsAbs(repo) {
		repo = strings.ToLower(strings.TrimSuffix(repo, ".git"))
	}
	sum := sha256.Sum256([]byte(repo))
	return hex.EncodeToString(sum[:8])
}

// CompilesOnly reports whether argv, a command core launches, runs no
// workspace code, so that what its go puts may be shared with later runs:
// the warm-up's go test -exec=/bin/true, or go build, vet or list, with
// package patterns and only flags that cannot start a program
// (-toolexec, -exec, -vettool, -ldflags=-extld=..., -overlay and the rest
// are not among them). Anything else is not shared, whatever it is.
func CompilesOnly(argv []string) bool {
	if len(argv) < 2 || argv[0] != "go" {
		return false
	}
	args := argv[2:]
	switch argv[1] {
	case "build", "vet", "list":
	case "test":
		if len(args) == 0 || args[0] != "-exec=/bin/true" {
			return false
		}
		args = args[1:]
	default:
		return false
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			if !strings.HasPrefix(a, "./") && a != "." && a != "all" && !isImportPath(a) {
				return false
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !hasValue && slices.Contains(harmlessGoFlags, name):
		case hasValue && name == "tags" && !strings.ContainsAny(value, "/ "):
		default:
			return false
		}
	}
	return true
}

// harmlessGoFlags are the go flags, without a value, that change what is
// built or printed but start no program of the workspace's.
var harmlessGoFlags = []string{"v", "x", "race", "trimpath", "e", "json", "deps", "test", "find", "a", "n"}

// isImportPath reports whether a is a plain import path pattern: letters,
// digits and . _ - /, not starting with a slash, no element "..".
func isImportPath(a string) bool {
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/", r)) {
			return false
		}
	}
	return !strings.HasPrefix(a, "/") && !slices.Contains(strings.Split(a, "/"), "..")
}

// PutNotice is what the cache program inside says it put.
type PutNotice struct {
	action, out [hashSize]byte
	size        int64
}

// Promote copies the outputs of puts from the run's layer into the shared
// layer, each checked against its output ID, and writes their entries;
// it returns how many it promoted.
func Promote(puts []PutNotice, run, shared string) (int, error) {
	if len(puts) == 0 {
		return 0, nil
	}
	from, err := os.OpenRoot(run)
	if err != nil {
		return 0, err
	}
	defer from.Close()
	into, err := openCacheStore(shared)
	if err != nil {
		return 0, err
	}
	defer into.Close()
	n := 0
	var errs []error
	for _, p := range puts {
		if err := promoteOne(from, into, p); err != nil {
			errs = append(errs, fmt.Errorf("%x: %w", p.action, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

func promoteOne(from *os.Root, into *cacheStore, p PutNotice) error {
	if p.size < 0 || p.size > maxCacheObject {
		return fmt.Errorf("size %d", p.size)
	}
	if _, ok := readEntry(into.root.Name(), p.action); ok {
		return nil // shared already: the first stays
	}
	name := filepath.Join(fmt.Sprintf("%02x", p.out[0]), fmt.Sprintf("%x-d", p.out))
	f, err := from.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() != p.size {
		return errors.New("the output is not a regular file of the size put")
	}
	if err := into.putChecked(p.out, f, p.size); err != nil {
		return err
	}
	line := entryLine(p.action, cacheEntry{out: p.out, size: p.size, time: time.Now()})
	return into.put(p.action, "a", strings.NewReader(line), int64(len(line)))
}

// putChecked writes size bytes of body as out's output, only when their
// SHA-256 is out.
func (c *cacheStore) putChecked(out [hashSize]byte, body io.Reader, size int64) error {
	h := sha256.New()
	return c.putVerified(out, "d", io.TeeReader(body, h), size, func() error {
		if [hashSize]byte(h.Sum(nil)) != out {
			return errors.New("the output's bytes are not its output ID's")
		}
		return nil
	})
}

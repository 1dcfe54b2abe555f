package gocache

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Confined Go builds read the user's build cache but never write it. Go's
// GOCACHEPROG protocol lets a program of core's own serve the cache: inside
// the sandbox, `core sandbox gocache` (ServeProg) answers the go
// command from the run's layer, then the repository's shared layer
// (layers.go), and writes every new entry into the run's layer; on a miss
// it asks core on the host, over a socket bound into the sandbox, for the
// user's entry with that action ID (UserServer), and it tells core
// over the same socket what it put. The host side only reads the user's
// cache, by a fixed-size key, and hands over what it finds in one of two
// ways:
//
//   - linked: hard links to the user's output and its entry in the linked
//     view (go-build-user in core's directory of the user's cache,
//     ~/.cache/core, else under $CORE_HOME/cache; in the cache's layout),
//     which the sandbox sees read-only and the relay reads before it asks
//     the host, so that each entry crosses the socket once. No byte is
//     copied, and the inode cannot be changed through it: a read-only
//     mount refuses writes, truncation, mode changes and a reopen for
//     writing through /proc, and a link to another mount fails. The view
//     keeps the user's files alive after their cache trims them, so core
//     starts it afresh once it is a week old;
//   - copied (when the view cannot be on the user's cache's file system):
//     the output and its entry are copied into the run's layer, through an
//     os.Root.
//
// The user's cache itself is never mounted inside, so confined code can
// neither write it nor list what else the user has built and tested.
//
// Every layer uses the go command's own layout: <dir>/<xx>/<id>-a holds an
// action's entry, <dir>/<xx>/<id>-d an output. A go without GOCACHEPROG
// (older than 1.24) reads and writes the run's layer directly.

// Where the sandbox sees the host's cache socket and the linked view.
const (
	SocketPath = "/run/core/gocache.sock"
	StagePath  = "/run/core/gocache-user"
)

// hashSize is the size of an action or output ID.
const hashSize = 32

// entrySize is the size of an action entry:
// "v1 <hex id> <hex out> <decimal size, 20 wide> <unix nano, 20 wide>\n".
const entrySize = 2 + 1 + 2*hashSize + 1 + 2*hashSize + 1 + 20 + 1 + 20 + 1

// maxCacheObject bounds one output the host copies into the sandbox.
const maxCacheObject = 2 << 30

// cacheEntry is an action's entry: its output and when it was made.
type cacheEntry struct {
	out  [hashSize]byte
	size int64
	time time.Time
}

// cachePath is where a cache dir keeps id's file of kind "a" or "d".
func cachePath(dir string, id [hashSize]byte, kind string) string {
	return filepath.Join(dir, fmt.Sprintf("%02x", id[0]), fmt.Sprintf("%x-%s", id, kind))
}

// readEntry reads id's entry in dir and checks that its output is there,
// a regular file of the recorded size. Links are not followed.
func readEntry(dir string, id [hashSize]byte) (cacheEntry, bool) {
	var buf [entrySize + 1]byte
	b, err := readSmall(cachePath(dir, id, "a"), buf[:])
	if err != nil || len(b) != entrySize {
		return cacheEntry{}, false
	}
	e, ok := parseEntry(b, id)
	if !ok {
		return cacheEntry{}, false
	}
	fi, err := os.Lstat(cachePath(dir, e.out, "d"))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != e.size {
		return cacheEntry{}, false
	}
	return e, true
}

// parseEntry parses an action entry the way the go command does.
func parseEntry(b []byte, id [hashSize]byte) (cacheEntry, bool) {
	f := strings.Split(strings.TrimSuffix(string(b), "\n"), " ")
	if len(f) < 5 || f[0] != "v1" || f[1] != hex.EncodeToString(id[:]) {
		return cacheEntry{}, false
	}
	var e cacheEntry
	out, err := hex.DecodeString(f[2])
	if err != nil || len(out) != hashSize {
		return cacheEntry{}, false
	}
	copy(e.out[:], out)
	nums := strings.Fields(strings.Join(f[3:], " "))
	if len(nums) != 2 {
		return cacheEntry{}, false
	}
	size, err1 := strconv.ParseInt(nums[0], 10, 64)
	nano, err2 := strconv.ParseInt(nums[1], 10, 64)
	if err1 != nil || err2 != nil || size < 0 || size > maxCacheObject || nano < 0 {
		return cacheEntry{}, false
	}
	e.size, e.time = size, time.Unix(0, nano)
	return e, true
}

// readSmall reads a regular file into buf, as much as fits, not following
// a link in its last element nor waiting on a FIFO.
func readSmall(path string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, errors.New("not a regular file")
	}
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if m <= 0 || err != nil {
			break
		}
		n += m
	}
	return buf[:n], nil
}

// entryLine is an action's entry as the go command writes it.
func entryLine(id [hashSize]byte, e cacheEntry) string {
	return fmt.Sprintf("v1 %x %x %20d %20d\n", id, e.out, e.size, e.time.UnixNano())
}

// cacheStore writes entries into a cache directory through an os.Root, so
// that nothing planted in it (by confined code, when the host writes)
// can send a write elsewhere.
type cacheStore struct {
	root *os.Root
	made sync.Map // the subdirectories made so far
}

// openCacheStore opens the cache directory dir for writing, making it
// when missing.
func openCacheStore(dir string) (*cacheStore, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &cacheStore{root: root}, nil
}

func (c *cacheStore) Close() error { return c.root.Close() }

// writeEntry records id's output: the output first, then the entry that
// points at it, so that a reader never sees an entry without its output.
func (c *cacheStore) writeEntry(id [hashSize]byte, e cacheEntry, body io.Reader) error {
	if err := c.put(e.out, "d", body, e.size); err != nil {
		return err
	}
	line := entryLine(id, e)
	return c.put(id, "a", strings.NewReader(line), int64(len(line)))
}

// put writes size bytes of body as id's file of kind "a" or "d", whole or
// not at all.
func (c *cacheStore) put(id [hashSize]byte, kind string, body io.Reader, size int64) error {
	return c.putVerified(id, kind, body, size, nil)
}

// putVerified is put, keeping the file only when check, called once the
// bytes are written, passes.
func (c *cacheStore) putVerified(id [hashSize]byte, kind string, body io.Reader, size int64, check func() error) error {
	sub := fmt.Sprintf("%02x", id[0])
	if _, ok := c.made.Load(sub); !ok {
		if err := c.root.MkdirAll(sub, 0o777); err != nil {
			return err
		}
		c.made.Store(sub, true)
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	tmp := filepath.Join(sub, fmt.Sprintf(".tmp-%x", rnd))
	f, err := c.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(body, size))
	if err == nil && n != size {
		err = fmt.Errorf("wrote %d bytes of %d", n, size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && check != nil {
		err = check()
	}
	if err == nil {
		err = c.root.Rename(tmp, filepath.Join(sub, fmt.Sprintf("%x-%s", id, kind)))
	}
	if err != nil {
		c.root.Remove(tmp)
	}
	return err
}

// The wire between the relay and the host: the relay sends a request
// byte and its fixed-size arguments. A get (wireGet) is an action ID; the
// host answers one byte, 0 for a miss, 1 for an entry copied into the
// run's layer, 2 for an output linked into the view, followed on a hit by
// the output ID, the size and the time (both big-endian int64). A put
// notice (wirePut) is the action ID, the output ID and the size
// (big-endian int64) of an entry the relay wrote into the run's layer; the
// host answers one byte, 0, once it has noted it (layers.go).
const (
	wireMiss   = 0
	wireCopied = 1
	wireLinked = 2

	wireGet = 'g'
	wirePut = 'p'
)

// UserServer answers the sandbox's lookups in the user's build cache
// for the length of one confined command: it links the user's outputs into
// the view, or copies the entries into the run's layer, on the
// host, where the kernel copies the bytes (copy_file_range), through an
// os.Root so that nothing confined code planted in that cache can send a
// write elsewhere.
type UserServer struct {
	dir   string      // the user's GOCACHE
	into  *cacheStore // the run's layer
	stage string      // the linked view; "" to copy
	tmp   string      // private directory holding the socket
	ln    *net.UnixListener
	done  chan struct{}
	conns sync.WaitGroup // the connections being served
	mu    sync.Mutex
	open  map[*net.UnixConn]bool
	// entries are the action IDs whose entries are still to be linked
	// into the view: off the go command's path, since the command needs
	// only the output now, and the entry for the commands after it.
	entries chan [hashSize]byte
	linked  chan struct{} // closed when entries is drained
	puts    []PutNotice   // what the relay put, in order (guarded by mu)
}

// Socket is the host path of the server's socket.
func (u *UserServer) Socket() string { return filepath.Join(u.tmp, "s") }

// Stage is the host directory of the linked view; "" when the server
// copies.
func (u *UserServer) Stage() string { return u.stage }

// ServeUser starts a server that hands entries of the user's build
// cache dir to the sandbox, on a socket in a fresh private directory:
// linked into the view stage when that lies on dir's file system, else
// copied into the run's layer into; it hears what the relay puts.
func ServeUser(dir, into, stage string) (*UserServer, error) {
	root, err := openCacheStore(into)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's build cache: %w", err)
	}
	tmp, err := os.MkdirTemp("", "core-gocache-")
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("build cache socket: %w", err)
	}
	if stage != "" && (os.MkdirAll(stage, 0o700) != nil || !SameDevice(dir, stage)) {
		stage = ""
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(tmp, "s"), Net: "unix"})
	if err != nil {
		root.Close()
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("build cache socket: %w", err)
	}
	u := &UserServer{dir: dir, into: root, stage: stage, tmp: tmp, ln: ln, done: make(chan struct{}),
		entries: make(chan [hashSize]byte, 4096), linked: make(chan struct{}), open: map[*net.UnixConn]bool{}}
	go u.accept()
	go u.linkEntries()
	return u, nil
}

// maxCacheConns bounds the connections served at once: one per go command
// running inside, and confined code gets no more than that.
const maxCacheConns = 64

func (u *UserServer) accept() {
	defer close(u.done)
	slots := make(chan struct{}, maxCacheConns)
	for {
		c, err := u.ln.AcceptUnix()
		if err != nil {
			return
		}
		select {
		case slots <- struct{}{}:
			u.conns.Add(1)
			u.mu.Lock()
			u.open[c] = true
			u.mu.Unlock()
			go func() {
				defer u.conns.Done()
				defer func() {
					u.mu.Lock()
					delete(u.open, c)
					u.mu.Unlock()
				}()
				defer func() { <-slots }()
				u.serve(c)
			}()
		default:
			c.Close()
		}
	}
}

// serve answers one connection's lookups until it closes.
func (u *UserServer) serve(c *net.UnixConn) {
	defer c.Close()
	r := bufio.NewReader(c)
	var id [hashSize]byte
	for {
		op, err := r.ReadByte()
		if err != nil {
			return
		}
		var answer []byte
		switch op {
		case wireGet:
			if _, err := io.ReadFull(r, id[:]); err != nil {
				return
			}
			answer = u.answer(id)
		case wirePut:
			var b [2*hashSize + 8]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return
			}
			n := PutNotice{action: [hashSize]byte(b[:hashSize]), out: [hashSize]byte(b[hashSize : 2*hashSize]), size: int64(binary.BigEndian.Uint64(b[2*hashSize:]))}
			u.mu.Lock()
			if len(u.puts) < maxPromoted {
				u.puts = append(u.puts, n)
			}
			u.mu.Unlock()
			answer = []byte{0}
		default:
			return
		}
		if _, err := c.Write(answer); err != nil {
			return
		}
	}
}

// Noted returns the puts the relay announced; call it after Close.
func (u *UserServer) Noted() []PutNotice {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.puts)
}

// answer links or copies the user's entry for id and says how, or says it
// missed.
func (u *UserServer) answer(id [hashSize]byte) []byte {
	if u.dir == "" {
		return []byte{wireMiss}
	}
	e, ok := readEntry(u.dir, id)
	if !ok {
		return []byte{wireMiss}
	}
	how := byte(wireLinked)
	if u.stage == "" || u.linkOutput(id, e) != nil {
		how = wireCopied
		if u.copyEntry(id, e) != nil {
			return []byte{wireMiss}
		}
	}
	head := make([]byte, 1+hashSize+16)
	head[0] = how
	copy(head[1:], e.out[:])
	binary.BigEndian.PutUint64(head[1+hashSize:], uint64(e.size))
	binary.BigEndian.PutUint64(head[1+hashSize+8:], uint64(e.time.UnixNano()))
	return head
}

// linkOutput links the user's output, which readEntry found a regular file
// of the entry's size, into the view, then the entry beside it: links
// only, no byte written. Should the user's go rewrite the entry (it does
// in place), the view follows; an entry whose output is not linked reads
// as a miss inside, and the host links it then.
func (u *UserServer) linkOutput(id [hashSize]byte, e cacheEntry) error {
	if err := u.link(cachePath(u.dir, e.out, "d"), cachePath(u.stage, e.out, "d")); err != nil {
		return err
	}
	select {
	case u.entries <- id:
	default: // a later command asks again
	}
	return nil
}

// linkEntries links the entries of the outputs linked so far, until Close.
func (u *UserServer) linkEntries() {
	defer close(u.linked)
	for id := range u.entries {
		u.link(cachePath(u.dir, id, "a"), cachePath(u.stage, id, "a"))
	}
}

// link links a file of the user's cache into the view, making its
// subdirectory when missing; a link already there is fine.
func (u *UserServer) link(src, dst string) error {
	err := os.Link(src, dst)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dst), 0o700); err == nil {
			err = os.Link(src, dst)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// viewAge is how long the linked view lives before core starts it afresh.
const viewAge = 7 * 24 * time.Hour

// FreshView returns the linked view under cache, moving a week-old one out
// of the way first (it is removed in the background).
func FreshView(cache string) string {
	view := filepath.Join(cache, "go-build-user")
	born := filepath.Join(view, ".born")
	fi, err := os.Stat(born)
	switch {
	case err == nil && time.Since(fi.ModTime()) < viewAge:
		return view
	case err == nil:
		// Commands of another core may still read the old view: it goes
		// a day after it was moved.
		olds, _ := filepath.Glob(view + ".old-*")
		for _, o := range olds {
			if fi, err := os.Stat(o); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
				os.RemoveAll(o)
			}
		}
		old := fmt.Sprintf("%s.old-%d", view, time.Now().UnixNano())
		if os.Rename(view, old) == nil {
			now := time.Now()
			os.Chtimes(old, now, now)
		}
	}
	if os.MkdirAll(view, 0o700) == nil {
		if f, err := os.OpenFile(born, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			f.Close()
		}
	}
	return view
}

// SameDevice reports whether two paths lie on one file system.
func SameDevice(a, b string) bool {
	var sa, sb syscall.Stat_t
	return syscall.Stat(a, &sa) == nil && syscall.Stat(b, &sb) == nil && sa.Dev == sb.Dev
}

// copyEntry copies the user's output and entry for id into the
// run's layer.
func (u *UserServer) copyEntry(id [hashSize]byte, e cacheEntry) error {
	f, err := os.OpenFile(cachePath(u.dir, e.out, "d"), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() != e.size {
		return errors.New("the output changed")
	}
	return u.into.writeEntry(id, e, f)
}

// Close stops the server, ends its connections and removes the socket.
func (u *UserServer) Close() {
	u.ln.Close()
	<-u.done
	u.mu.Lock()
	for c := range u.open {
		c.Close()
	}
	u.mu.Unlock()
	u.conns.Wait()
	close(u.entries)
	<-u.linked
	u.into.Close()
	os.RemoveAll(u.tmp)
}

// ProgCommand is GOCACHEPROG for a run's layer at dir, reading the
// shared layer too when shared: core's executable as the sandbox sees it
// (exe), quoted the go command's way; "" when dir cannot be quoted so.
func ProgCommand(exe, dir string, shared bool) string {
	q := ""
	switch {
	case !strings.Contains(dir, "'"):
		q = "'"
	case !strings.Contains(dir, `"`):
		q = `"`
	default:
		return ""
	}
	cmd := exe + " sandbox gocache --dir " + q + dir + q + " --socket " + SocketPath + " --stage " + StagePath
	if shared {
		cmd += " --shared " + SharedPath
	}
	return cmd
}

package gocache

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// progRequest and progResponse are the messages of Go's GOCACHEPROG
// protocol (cmd/go/internal/cacheprog), one JSON object a line; a put with a
// body is followed by the body as a base64 JSON string.
type progRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type progResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// ServeProg is `core sandbox gocache`, Go's GOCACHEPROG inside the
// sandbox: it answers the go command's requests on in and out from the
// run's layer at dir, then the repository's shared layer at shared and the
// view stage (both read-only inside; "" for none), then asks the host over
// socket (when set and reachable) for the user's entries, which the host
// links into stage or copies into dir. It writes every new entry into dir
// and tells the host what it put, which the host may promote into the
// shared layer (layers.go). It returns when the go command closes it.
func ServeProg(in io.Reader, out io.Writer, dir, socket, stage, shared string) error {
	store, err := openCacheStore(dir)
	if err != nil {
		return fmt.Errorf("gocache: %w", err)
	}
	defer store.Close()
	p := &cacheProg{dir: dir, store: store, socket: socket, stage: stage, shared: shared, idle: make(chan *net.UnixConn, hostConns)}
	defer p.closeHost()
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	var mu sync.Mutex // one response at a time on out
	var werr error
	send := func(r progResponse) {
		mu.Lock()
		defer mu.Unlock()
		if werr == nil {
			if werr = enc.Encode(r); werr == nil {
				werr = bw.Flush()
			}
		}
	}
	send(progResponse{KnownCommands: []string{"get", "put", "close"}})
	// Requests are answered as they finish, each on its own goroutine: the
	// go command asks for many entries at once, and a copy from the
	// user's cache must not wait for the one before it.
	var wg sync.WaitGroup
	defer wg.Wait()
	dec := json.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	for {
		var req progRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("gocache: read a request: %w", err)
		}
		var body []byte
		if req.Command == "put" && req.BodySize > 0 {
			if err := dec.Decode(&body); err != nil {
				return fmt.Errorf("gocache: read the body of request %d: %w", req.ID, err)
			}
			if int64(len(body)) != req.BodySize {
				return fmt.Errorf("gocache: request %d: body of %d bytes, want %d", req.ID, len(body), req.BodySize)
			}
		}
		if req.Command == "close" {
			wg.Wait()
			send(progResponse{ID: req.ID})
			mu.Lock()
			defer mu.Unlock()
			if werr != nil {
				return fmt.Errorf("gocache: %w", werr)
			}
			return nil
		}
		if req.Command == "get" {
			// What the sandbox holds is answered at once: a goroutine
			// and its wake-ups cost more than the lookup.
			if id, ok := toHash(req.ActionID); ok {
				if res, ok := p.local(id); ok {
					res.ID = req.ID
					send(res)
					continue
				}
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := p.handle(req, body)
			res.ID = req.ID
			send(res)
		}()
	}
}

// hostConns bounds the connections to the host: copies from the user's
// cache run this many at a time.
const hostConns = 8

// cacheProg is the state of one GOCACHEPROG process.
type cacheProg struct {
	dir    string
	store  *cacheStore // dir, for writing
	socket string
	stage  string // where the host's linked outputs are seen; "" for none
	shared string // the repository's shared layer, read-only; "" for none

	idle   chan *net.UnixConn // connections to the host not in use
	mu     sync.Mutex
	dialed int  // connections made and not closed
	noHost bool // the host is unreachable or failed: ask no more
}

// handle answers what the request loop could not answer at once: a get
// the sandbox does not hold (from the user's cache, through the host), a
// put, or a bad request.
func (p *cacheProg) handle(req progRequest, body []byte) progResponse {
	switch req.Command {
	case "get":
		id, ok := toHash(req.ActionID)
		if !ok {
			return progResponse{Err: "get: the action ID is not 32 bytes"}
		}
		e, path, ok := p.fromHost(id)
		if !ok {
			return progResponse{Miss: true}
		}
		return hit(e, path)
	case "put":
		id, ok1 := toHash(req.ActionID)
		out, ok2 := toHash(req.OutputID)
		if !ok1 || !ok2 {
			return progResponse{Err: "put: an ID is not 32 bytes"}
		}
		if err := p.store.writeEntry(id, cacheEntry{out: out, size: int64(len(body)), time: time.Now()}, bytes.NewReader(body)); err != nil {
			return progResponse{Err: "put: " + err.Error()}
		}
		p.notify(id, out, int64(len(body)))
		return progResponse{DiskPath: cachePath(p.dir, out, "d")}
	}
	return progResponse{Err: fmt.Sprintf("unknown command %q", req.Command)}
}

// local answers from the run's layer, else from the shared layer, else
// from the view, where the host linked the user's entries for earlier
// commands (both read-only here).
func (p *cacheProg) local(id [hashSize]byte) (progResponse, bool) {
	if e, ok := readEntry(p.dir, id); ok {
		return hit(e, cachePath(p.dir, e.out, "d")), true
	}
	for _, dir := range []string{p.shared, p.stage} {
		if dir == "" {
			continue
		}
		if e, ok := readEntry(dir, id); ok {
			return hit(e, cachePath(dir, e.out, "d")), true
		}
	}
	return progResponse{}, false
}

// notify tells the host what was put; a failure of the wire ends the
// asking, as in fromHost, and costs only the sharing of this entry.
func (p *cacheProg) notify(id, out [hashSize]byte, size int64) {
	c := p.conn()
	if c == nil {
		return
	}
	var msg [1 + 2*hashSize + 8]byte
	msg[0] = wirePut
	copy(msg[1:], id[:])
	copy(msg[1+hashSize:], out[:])
	binary.BigEndian.PutUint64(msg[1+2*hashSize:], uint64(size))
	var ack [1]byte
	if _, err := c.Write(msg[:]); err == nil {
		if _, err = io.ReadFull(c, ack[:]); err == nil {
			p.idle <- c
			return
		}
	}
	c.Close()
	p.mu.Lock()
	p.dialed--
	p.noHost = true
	p.mu.Unlock()
}

func hit(e cacheEntry, path string) progResponse {
	t := e.time
	return progResponse{OutputID: e.out[:], Size: e.size, Time: &t, DiskPath: path}
}

// fromHost asks the host for the user's entry for id, which the host
// links into the view or copies into the run's layer,
// and returns where its output is. A failure of the wire ends the asking:
// the build goes on with the layers it has.
func (p *cacheProg) fromHost(id [hashSize]byte) (cacheEntry, string, bool) {
	c := p.conn()
	if c == nil {
		return cacheEntry{}, "", false
	}
	e, path, err := ask(c, p.dir, p.stage, id)
	if err != nil {
		c.Close()
		p.mu.Lock()
		p.dialed--
		p.noHost = true
		p.mu.Unlock()
		return cacheEntry{}, "", false
	}
	p.idle <- c
	return e, path, path != ""
}

// conn returns an idle connection to the host, dials one while fewer than
// hostConns are open, or waits for one; nil when there is no host.
func (p *cacheProg) conn() *net.UnixConn {
	select {
	case c := <-p.idle:
		return c
	default:
	}
	p.mu.Lock()
	if p.noHost || p.socket == "" {
		p.mu.Unlock()
		return nil
	}
	if p.dialed >= hostConns {
		p.mu.Unlock()
		return <-p.idle
	}
	p.dialed++
	p.mu.Unlock()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: p.socket, Net: "unix"})
	if err != nil {
		p.mu.Lock()
		p.dialed--
		p.noHost = true
		p.mu.Unlock()
		return nil
	}
	return c
}

// ask asks the host over c for id's entry, and returns it with the path
// of its output ("" for a miss).
func ask(c *net.UnixConn, dir, stage string, id [hashSize]byte) (cacheEntry, string, error) {
	if _, err := c.Write(append([]byte{wireGet}, id[:]...)); err != nil {
		return cacheEntry{}, "", err
	}
	var status [1]byte
	if _, err := io.ReadFull(c, status[:]); err != nil {
		return cacheEntry{}, "", err
	}
	if status[0] == wireMiss {
		return cacheEntry{}, "", nil
	}
	if status[0] != wireCopied && (status[0] != wireLinked || stage == "") {
		return cacheEntry{}, "", fmt.Errorf("the host answered %d", status[0])
	}
	var head [hashSize + 16]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return cacheEntry{}, "", err
	}
	var e cacheEntry
	copy(e.out[:], head[:hashSize])
	e.size = int64(binary.BigEndian.Uint64(head[hashSize:]))
	e.time = time.Unix(0, int64(binary.BigEndian.Uint64(head[hashSize+8:])))
	if status[0] == wireLinked {
		// The output is linked into the view, which nothing inside can
		// change.
		return e, cachePath(stage, e.out, "d"), nil
	}
	// The host copied the entry into dir: it is a hit only if it is there.
	got, ok := readEntry(dir, id)
	if !ok || got.out != e.out {
		return cacheEntry{}, "", nil
	}
	return got, cachePath(dir, got.out, "d"), nil
}

// closeHost closes the idle connections (at the end, all of them).
func (p *cacheProg) closeHost() {
	for {
		select {
		case c := <-p.idle:
			c.Close()
		default:
			return
		}
	}
}

func toHash(b []byte) ([hashSize]byte, bool) {
	var h [hashSize]byte
	if len(b) != hashSize {
		return h, false
	}
	copy(h[:], b)
	return h, true
}

// ServeIfAsked serves Go's build cache and exits when args (os.Args) are
// how a confined go command starts core as its GOCACHEPROG (`<exe> sandbox
// gocache --dir D [--socket S --stage D --shared D]`), and returns
// otherwise. The TestMain of a package whose tests give the test binary as
// Config.CacheProg calls it first; core's command line parses the same
// flags itself.
func ServeIfAsked(args []string) {
	if len(args) < 3 || args[1] != "sandbox" || args[2] != "gocache" {
		return
	}
	var dir, socket, stage, shared string
	for i := 3; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--dir":
			dir = args[i+1]
		case "--socket":
			socket = args[i+1]
		case "--stage":
			stage = args[i+1]
		case "--shared":
			shared = args[i+1]
		}
	}
	if err := ServeProg(os.Stdin, os.Stdout, dir, socket, stage, shared); err != nil {
		fmt.Fprintln(os.Stderr, "core sandbox gocache:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

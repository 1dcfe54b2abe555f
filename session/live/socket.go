package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// SocketFile is the live run's control socket in its session directory
// (0700): core session send, interrupt and stop reach the run through it,
// only from this machine and only as the user who started it.
const SocketFile = "control.sock"

// The control operations.
const (
	OpSend      = "send"
	OpInterrupt = "interrupt"
	OpStop      = "stop"
)

// controlRequest is one line a client writes; controlReply the line the
// run answers with.
type controlRequest struct {
	Op   string `json:"op"`
	Text string `json:"text,omitempty"`
}

type controlReply struct {
	OK    bool   `json:"ok"`
	Reply string `json:"reply,omitempty"`
	Error string `json:"error,omitempty"`
}

// maxRequest bounds one control request.
const maxRequest = 64 << 10

// socketAddr is the address of the socket in dir: the path itself, or,
// when it is longer than a socket address may be, the same file reached
// through dirFD (an open descriptor of dir) under /proc/self/fd.
func socketAddr(dir string, dirFD uintptr) string {
	path := filepath.Join(dir, SocketFile)
	if len(path) < 100 {
		return path
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", dirFD, SocketFile)
}

// Controller is what the socket hands each request to: the run's control.
type Controller interface {
	Send(m Message) (string, error)
	Interrupt(from string) (string, error)
	Stop(from string) (string, error)
}

// Serve listens on the session's socket until ctx ends or close is
// called, handing each request to ctl. A socket a dead process left is
// replaced.
func Serve(ctx context.Context, dir string, ctl Controller) (closeFn func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open the control socket: %w", err)
	}
	defer d.Close()
	path := filepath.Join(dir, SocketFile)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		// The lock is ours, so whoever made it is gone.
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", socketAddr(dir, d.Fd()))
	if err != nil {
		return nil, fmt.Errorf("open the control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("open the control socket %s: %w", path, err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // the address may be a /proc path: remove the file by its name
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ul.AcceptUnix()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				serveConn(conn, ctl)
			}()
		}
	}()
	var once sync.Once
	closeFn = func() {
		once.Do(func() {
			close(done)
			ln.Close()
			_ = os.Remove(path)
			wg.Wait()
		})
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
		}
		ln.Close()
	}()
	return closeFn, nil
}

// serveConn answers one request, from the run's own user only: the
// directory's 0700 keeps others out, and the peer's credentials are
// checked besides.
func serveConn(conn *net.UnixConn, ctl Controller) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	answer := func(reply string, err error) {
		r := controlReply{OK: err == nil, Reply: reply}
		if err != nil {
			r.Error = err.Error()
		}
		b, _ := json.Marshal(r)
		_, _ = conn.Write(append(b, '\n'))
	}
	uid, err := peerUID(conn)
	if err != nil {
		answer("", err)
		return
	}
	if uid != os.Getuid() {
		answer("", fmt.Errorf("refused: only the user who started the run (uid %d) may reach it, not uid %d", os.Getuid(), uid))
		return
	}
	line, err := bufio.NewReader(&limitedConn{conn, maxRequest}).ReadBytes('\n')
	if err != nil {
		answer("", fmt.Errorf("read the request: %w", err))
		return
	}
	var req controlRequest
	if err := json.Unmarshal(line, &req); err != nil {
		answer("", fmt.Errorf("the request is not a control request: %w", err))
		return
	}
	from := LocalUser(uid)
	switch req.Op {
	case OpSend:
		answer(ctl.Send(Message{From: from, Text: req.Text}))
	case OpInterrupt:
		answer(ctl.Interrupt(from))
	case OpStop:
		answer(ctl.Stop(from))
	default:
		answer("", fmt.Errorf("unknown operation %q: send, interrupt or stop", req.Op))
	}
}

// limitedConn reads at most n bytes.
type limitedConn struct {
	c *net.UnixConn
	n int
}

func (l *limitedConn) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("the request is too long")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.c.Read(p)
	l.n -= n
	return n, err
}

// peerUID is the user id of the process at the other end (SO_PEERCRED).
func peerUID(conn *net.UnixConn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("read the peer's credentials: %w", err)
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, fmt.Errorf("read the peer's credentials: %w", err)
	}
	if cerr != nil {
		return 0, fmt.Errorf("read the peer's credentials: %w", cerr)
	}
	return int(cred.Uid), nil
}

// LocalUser names a local user for the transcript: "local user alice".
func LocalUser(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return "local user " + u.Username
	}
	return "local user " + strconv.Itoa(uid)
}

// Call sends one operation to the live session id, whose directory is
// dir, through its socket and returns the run's acknowledgement.
func Call(ctx context.Context, dir, id, op, text string) (string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return "", fmt.Errorf("reach session %s: %w", id, err)
	}
	defer d.Close()
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "unix", socketAddr(dir, d.Fd()))
	if err != nil {
		return "", fmt.Errorf("reach session %s through %s: %w", id, filepath.Join(dir, SocketFile), err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	b, err := json.Marshal(controlRequest{Op: op, Text: text})
	if err != nil {
		return "", err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return "", fmt.Errorf("reach session %s: %w", id, err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return "", fmt.Errorf("session %s did not answer: %w", id, err)
	}
	var r controlReply
	if err := json.Unmarshal(line, &r); err != nil {
		return "", fmt.Errorf("session %s answered nonsense: %w", id, err)
	}
	if !r.OK {
		return "", fmt.Errorf("session %s: %s", id, r.Error)
	}
	return r.Reply, nil
}

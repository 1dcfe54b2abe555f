package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Host starts the browser process somewhere and joins its DevTools pipe:
// the browser reads commands from its fd 3 and writes answers and events
// to its fd 4 (--remote-debugging-pipe), which the returned pipe reads and
// writes. stop ends the process and every process it started, and waits
// for them; it is safe to call more than once. The run's box is the host
// the browser lives in; HostLauncher starts it on this machine, for tests
// only: a run never does (session.CheckBrowserBox).
type Host interface {
	StartBrowser(ctx context.Context, argv []string) (pipe io.ReadWriteCloser, stop func(), err error)
}

// candidates are the names the browser has on common systems, in the order
// Find tries them.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Install is the advice given when no browser is found.
const Install = "install Chromium (Debian, Ubuntu: apt-get install chromium) or name the binary with --browser-exec"

// Find resolves the browser binary: exec when given (a path, or a name
// looked up on path; --browser-exec), else the first of chromium,
// chromium-browser and google-chrome found on path. The error says what
// to do; the caller names the option.
func Find(exec, path string) (string, error) {
	if exec != "" {
		p, err := lookPath(exec, path)
		if err != nil {
			return "", fmt.Errorf("%q %w: %s", exec, err, Install)
		}
		return p, nil
	}
	for _, name := range candidates {
		if p, err := lookPath(name, path); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no browser found on PATH (looked for %s): %s", strings.Join(candidates, ", "), Install)
}

// lookPath finds an executable file by name in the directories of path, or
// checks the one a name with a slash gives.
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, executable(name)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", errors.New("is not found")
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return errors.New("is not found")
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return errors.New("is not an executable file")
	}
	return nil
}

// HostLauncher starts the browser on this machine, in a process group of
// its own that is killed when the run stops it (and, through
// Pdeathsig, when core dies). Env is the browser's whole environment. The
// browser's and the tools' tests use it; a session never does.
type HostLauncher struct {
	Env []string
}

var _ Host = HostLauncher{}

// maxStartOutput is how much of the browser's own output is kept to
// explain a failed start.
const maxStartOutput = 16 << 10

// StartBrowser starts argv with the DevTools pipe on fds 3 and 4.
func (h HostLauncher) StartBrowser(ctx context.Context, argv []string) (io.ReadWriteCloser, func(), error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("start browser: no command")
	}
	cmdR, cmdW, err := os.Pipe() // the browser reads commands from cmdR
	if err != nil {
		return nil, nil, fmt.Errorf("start browser: %w", err)
	}
	outR, outW, err := os.Pipe() // the browser writes answers to outW
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, nil, fmt.Errorf("start browser: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = h.Env
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	out := &capped{max: maxStartOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	cmdR.Close()
	outW.Close()
	if err != nil {
		cmdW.Close()
		outR.Close()
		return nil, nil, fmt.Errorf("start browser %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	pipe := &filePipe{r: outR, w: cmdW}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			pipe.Close()
			// The whole group: the browser's zygote, renderers and
			// helpers go with it.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		})
	}
	return pipe, stop, nil
}

// filePipe is the host's two ends of the DevTools pipe as one stream.
type filePipe struct {
	r, w *os.File
	once sync.Once
}

func (p *filePipe) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *filePipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *filePipe) Close() error {
	var err error
	p.once.Do(func() { err = errors.Join(p.w.Close(), p.r.Close()) })
	return err
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

package registry

import (
	"bufio"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Tripwire is a TCP listener on loopback that nothing should reach: it
// records every connection (the first line each sends) and answers "ok",
// so a client that waits for the answer knows it was counted. A test
// asserts on Hits after what it runs has ended.
type Tripwire struct {
	Addr string // 127.0.0.1:port

	mu   sync.Mutex
	hits []string
}

// NewTripwire starts a Tripwire, closed when the test ends.
func NewTripwire(t testing.TB) *Tripwire {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("tripwire: listen on loopback: %v", err)
	}
	w := &Tripwire{Addr: l.Addr().String()}
	var wg sync.WaitGroup
	var conns sync.Map
	t.Cleanup(func() {
		_ = l.Close()
		conns.Range(func(c, _ any) bool { _ = c.(net.Conn).Close(); return true })
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			w.mu.Lock()
			w.hits = append(w.hits, "")
			n := len(w.hits) - 1
			w.mu.Unlock()
			conns.Store(c, true)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conns.Delete(c)
				defer c.Close()
				line, _ := bufio.NewReader(io.LimitReader(c, 4<<10)).ReadString('\n')
				w.mu.Lock()
				w.hits[n] = strings.TrimSpace(line)
				w.mu.Unlock()
				_, _ = c.Write([]byte("ok\n"))
			}()
		}
	}()
	return w
}

// Hits are the first lines of the connections it got, in order (""
// for one that has sent none yet).
func (w *Tripwire) Hits() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.hits)
}

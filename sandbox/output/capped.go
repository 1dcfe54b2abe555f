// Package output keeps what a confined command prints within a bound: its
// head and its tail, with a line that says how much of the middle was cut
// (Capped).
package output

import (
	"fmt"
	"strings"
	"sync"
)

// DefaultLimit is how much of a command's combined output sandbox's Run keeps
// when the caller sets no limit.
const DefaultLimit = 64 << 10

// Capped keeps the head and the tail of everything written to it and counts
// what it left out of the middle. Writes never fail, so nothing a command
// prints can make the caller fail.
type Capped struct {
	mu    sync.Mutex
	limit int    // head and tail get half each
	head  []byte // the first limit/2 bytes
	tail  []byte // ring buffer of the last limit/2 bytes
	next  int    // where the ring writes next, once full
	total int64  // bytes written
}

// NewCapped keeps limit bytes of what is written to it, DefaultLimit when
// limit is 0 or less.
func NewCapped(limit int) *Capped {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if limit < 2 {
		limit = 2
	}
	return &Capped{limit: limit}
}

func (c *Capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	half := c.limit / 2
	if room := half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	tailCap := c.limit - half
	for len(p) > 0 {
		if len(c.tail) < tailCap {
			k := min(tailCap-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= tailCap {
			copy(c.tail, p[len(p)-tailCap:])
			c.next = 0
			break
		}
		k := copy(c.tail[c.next:], p)
		p = p[k:]
		c.next = (c.next + k) % tailCap
	}
	return n, nil
}

// String returns the kept output as valid UTF-8 and the number of bytes cut
// from the middle. When something was cut, a line in the middle says so.
func (c *Capped) String() (string, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := append(append([]byte(nil), c.tail[c.next:]...), c.tail[:c.next]...)
	cut := c.total - int64(len(c.head)) - int64(len(tail))
	var b strings.Builder
	b.Write(c.head)
	if cut > 0 {
		fmt.Fprintf(&b, "\n… [%d bytes of output cut] …\n", cut)
	}
	b.Write(tail)
	return strings.ToValidUTF8(b.String(), "\uFFFD"), cut
}

// Text is what was kept, with the line that says what was cut.
func (c *Capped) Text() string {
	s, _ := c.String()
	return s
}

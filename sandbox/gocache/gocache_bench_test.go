package gocache

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkCacheProgGet measures one get that neither the sandbox-only
// cache nor the view holds, served from the user's through the host, as
// the gets of a confined go command's first build are: linked into a
// fresh view, one after another, each a new entry.
func BenchmarkCacheProgGet(b *testing.B) {
	user := b.TempDir()
	ids := make([][32]byte, 1000)
	for i := range ids {
		ids[i] = [32]byte(hashOf(fmt.Sprint("a", i)))
		body := strings.Repeat("x", 4096)
		putEntry(b, user, ids[i], cacheEntry{out: [32]byte(hashOf(fmt.Sprint("o", i))), size: int64(len(body)), time: time.Now()}, body)
	}
	var p *cacheProg
	var srv *UserServer
	fresh := func() {
		if srv != nil {
			p.closeHost()
			srv.Close()
		}
		var err error
		into := b.TempDir()
		if srv, err = ServeUser(user, into, filepath.Join(b.TempDir(), "view")); err != nil {
			b.Fatal(err)
		}
		p = &cacheProg{dir: into, socket: srv.Socket(), stage: srv.stage, idle: make(chan *net.UnixConn, hostConns)}
	}
	b.Cleanup(func() {
		if srv != nil {
			srv.Close()
		}
	})
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if n%len(ids) == 0 {
			b.StopTimer()
			fresh()
			b.StartTimer()
		}
		if _, _, ok := p.fromHost(ids[n%len(ids)]); !ok {
			b.Fatal("miss")
		}
	}
}

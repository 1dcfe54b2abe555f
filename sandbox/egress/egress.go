package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The dependency step's network: none of its own (bwrap's --unshare-net),
// and one way out, an HTTP proxy that core serves on the host and that
// reaches only the configured registries' hosts. Core listens on a Unix
// socket in a 0700 directory of its own, bound into the step; inside, core's
// executable (`core sandbox egress`, forward.go) listens on the
// step's loopback at Listen, passes every connection through the
// socket, and runs the step's command with the proxy variables pointing at
// it. The proxy on the host allows CONNECT (TLS passes end to end, SNI and
// all) and plain http:// requests in absolute form, to the allowed
// host:port pairs only (egressAllowed); anything else is refused with 403
// and a body that says why. A client that ignores the proxy variables has
// no route anywhere: the step's namespace has only its loopback.

const (
	// Listen is where the step's proxy listens, inside.
	Listen = "127.0.0.1:3128"
	// Socket is the proxy socket's name in the bound directory.
	Socket = "egress.sock"
	// maxEgressHeader bounds a proxy request's header.
	maxEgressHeader = 64 << 10
)

// ProxyURL is the proxy as the step's clients name it.
const ProxyURL = "http://" + Listen

// Env points every client of the steps at the proxy, and none at
// an exception to it.
var Env = []string{
	"http_proxy=" + ProxyURL, "https_proxy=" + ProxyURL, "HTTP_PROXY=" + ProxyURL, "HTTPS_PROXY=" + ProxyURL,
	"no_proxy=", "NO_PROXY=", "npm_config_proxy=" + ProxyURL, "npm_config_https_proxy=" + ProxyURL, "npm_config_noproxy=",
	"CARGO_HTTP_PROXY=" + ProxyURL,
}

// hostPort is a URL's host:port, lowercased, its port the scheme's when it
// names none; "" when it is no http or https URL with a host. A sparse+ or
// registry+ prefix (cargo's) is read past.
func hostPort(raw string) string {
	raw = strings.TrimPrefix(strings.TrimPrefix(raw, "sparse+"), "registry+")
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	case u.Scheme == "http":
		port = "80"
	default:
		return ""
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return ""
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// egressAllowed reports whether the proxy may connect to target
// (host:port, as a CONNECT or an absolute URL names it): exactly one of
// allowed, by name and port.
func egressAllowed(allowed []string, target string) bool {
	host, port, err := net.SplitHostPort(target)
	if err != nil || host == "" || port == "" {
		return false
	}
	return slices.Contains(allowed, net.JoinHostPort(strings.ToLower(strings.TrimSuffix(host, ".")), port))
}

// Hosts are the host:port pairs of urls, once each, in order.
func Hosts(urls ...string) []string {
	var out []string
	for _, u := range urls {
		if hp := hostPort(u); hp != "" && !slices.Contains(out, hp) {
			out = append(out, hp)
		}
	}
	return out
}

// Proxy is the host's side of the step's network.
type Proxy struct {
	allowed []string
	log     *Log // the allowed hosts it could not reach; may be nil
	dialer  net.Dialer
	srv     *http.Server
	dir     string
	remove  bool // dir is the proxy's own, removed at close
	wg      sync.WaitGroup

	mu      sync.Mutex
	tunnels map[net.Conn]bool // hijacked connections, ended by close
}

// Serve starts the proxy for allowed on a socket in a fresh 0700
// directory; its close stops it and removes the directory.
func Serve(allowed []string, log *Log) (*Proxy, error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("core-egress-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	e, err := ServeIn(dir, allowed, log)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	e.remove = true
	return e, nil
}

// ServeIn starts the proxy for allowed on a socket in dir, a
// directory core made for it, that only the step's user may reach (the
// socket itself is for anyone who reaches it: a Docker step's user is
// not core's). log, when set, records the allowed hosts it cannot reach.
func ServeIn(dir string, allowed []string, log *Log) (*Proxy, error) {
	sock := filepath.Join(dir, Socket)
	l, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		l.Close()
		return nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	e := &Proxy{allowed: allowed, log: log, dir: dir, dialer: net.Dialer{Timeout: 30 * time.Second}, tunnels: map[net.Conn]bool{}}
	e.srv = &http.Server{Handler: e, MaxHeaderBytes: maxEgressHeader, ReadHeaderTimeout: time.Minute}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		_ = e.srv.Serve(l)
	}()
	return e, nil
}

// Close stops the proxy, ends its connections and removes its directory.
func (e *Proxy) Close() {
	_ = e.srv.Close()
	e.mu.Lock()
	for c := range e.tunnels {
		_ = c.Close()
	}
	e.tunnels = nil
	e.mu.Unlock()
	e.wg.Wait()
	if e.remove {
		os.RemoveAll(e.dir)
	}
}

// Dir is the directory that holds the proxy's socket (Socket).
func (e *Proxy) Dir() string { return e.dir }

// track keeps c to end at close; false when the proxy is closed already.
func (e *Proxy) track(c net.Conn, on bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tunnels == nil {
		return false
	}
	if on {
		e.tunnels[c] = true
	} else {
		delete(e.tunnels, c)
	}
	return true
}

// dial connects to target when it is allowed.
func (e *Proxy) dial(ctx context.Context, target string) (net.Conn, error) {
	if !egressAllowed(e.allowed, target) {
		return nil, fmt.Errorf("%s is not a registry this step may reach (%s): %w", target, strings.Join(e.allowed, ", "), errEgressRefused)
	}
	c, err := e.dialer.DialContext(ctx, "tcp", target)
	if err != nil && ctx.Err() == nil {
		e.log.Record(target, err)
	}
	return c, err
}

// errEgressRefused is a connection to a host that is not allowed.
var errEgressRefused = errors.New("refused by core")

func (e *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		e.connect(w, r)
		return
	}
	if r.URL.Host == "" || r.URL.Scheme != "http" {
		http.Error(w, "core's dependency proxy takes CONNECT and http:// URLs in absolute form only", http.StatusBadRequest)
		return
	}
	target := r.URL.Host
	if r.URL.Port() == "" {
		target = net.JoinHostPort(r.URL.Hostname(), "80")
	}
	if !egressAllowed(e.allowed, target) {
		http.Error(w, fmt.Sprintf("%s is not a registry this step may reach", target), http.StatusForbidden)
		return
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.Out.URL, pr.Out.Host = pr.In.URL, pr.In.Host },
		Transport: &http.Transport{
			Proxy:             nil,
			DialContext:       func(ctx context.Context, _, _ string) (net.Conn, error) { return e.dial(ctx, target) },
			DisableKeepAlives: true,
		},
		// Said to the client, not logged on core's standard error.
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, fmt.Sprintf("core's dependency proxy could not reach %s: %v", target, err), http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
}

// connect answers a CONNECT: the bytes both ways, once the target is
// allowed and reached.
func (e *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	up, err := e.dial(r.Context(), r.Host)
	if errors.Is(err, errEgressRefused) {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer up.Close()
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "the proxy cannot take over the connection", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer down.Close()
	if !e.track(down, true) || !e.track(up, true) {
		return
	}
	defer e.track(down, false)
	defer e.track(up, false)
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	// What the client sent after its CONNECT is the tunnel's already.
	if n := buf.Reader.Buffered(); n > 0 {
		b, _ := buf.Reader.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	splice(down, up)
}

// splice copies both ways until either side ends.
func splice(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if c, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = c.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
}

package mcptool

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// remoteTransport is the HTTP transport of one remote server: it reaches
// that server's host and port alone, adds its headers, and cuts a response
// body past limit bytes.
func remoteTransport(p Planned, limit int) http.RoundTripper {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil
	u, _ := url.Parse(p.URL) // checked by Parse
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		if r.URL.Scheme != u.Scheme || r.URL.Host != u.Host {
			return nil, fmt.Errorf("MCP server %q: a request to %s refused: only %s may be reached", p.Name, r.URL.Host, u.Host)
		}
		r = r.Clone(r.Context())
		for k, v := range p.Headers {
			r.Header.Set(k, v)
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: int64(limit) * 2}
		return resp, nil
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// sameHost refuses a redirect to another host.
func sameHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 || req.URL.Host != via[0].URL.Host {
		return errors.New("redirect refused: an MCP server's requests stay on its host")
	}
	return nil
}

// errBodyTooLarge ends a response past its bound.
var errBodyTooLarge = errors.New("the MCP server's response is over core's bound: cut")

// cappedBody fails a read past its bound.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

package browser

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLocal is the rule of which URLs stay on this machine's loopback:
// http, https, ws and wss to localhost, 127.0.0.1 or [::1], any port.
// Every other spelling of a loopback address is not local (the guard
// blocks it: the safe side), and a remote host in disguise is not either.
func TestLocal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"http://localhost", true},
		{"http://localhost:3000/app?x=1#top", true},
		{"https://localhost:8443/", true},
		{"http://LOCALHOST:3000/", true},
		{"HTTP://LocalHost/", true},
		{"http://127.0.0.1:8080/", true},
		{"http://[::1]:5173/", true},
		{"ws://localhost:3000/socket", true},
		{"wss://127.0.0.1/socket", true},
		// Other loopback spellings: not on the list, so not local.
		{"http://0.0.0.0:3000/", false},
		{"http://127.0.0.2/", false},
		{"http://localhost./", false},
		{"http://sub.localhost/", false},
		{"http://[::ffff:127.0.0.1]/", false},
		{"http://[0:0:0:0:0:0:0:1]/", false},
		{"http://2130706433/", false},
		{"http://0x7f000001/", false},
		{"http://0177.0.0.1/", false},
		{"http://127.1/", false},
		// A remote host dressed as a local one.
		{"http://localhost@evil.example/", false},
		{"http://localhost:3000@evil.example/", false},
		{"http://127.0.0.1.evil.example/", false},
		{"http://localhost.evil.example/", false},
		{"http://evil.example/?u=http://localhost/", false},
		{"http://evil.example/#http://localhost/", false},
		{"http://evil.example\\@localhost/", false},
		{"http://evil.example%2f@localhost/", true}, // userinfo, then localhost: local
		// Schemes that are not http or ws.
		{"file:///etc/passwd", false},
		{"file://localhost/etc/passwd", false},
		{"ftp://localhost/", false},
		{"data:text/html,hi", false},
		{"about:blank", false},
		{"javascript:alert(1)", false},
		{"chrome://settings", false},
		{"//localhost/", false},
		{"localhost:3000", false},
		{"", false},
		{"http://[::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Local(tt.url))
		})
	}
}

// TestAllowed is what a page may load: what never leaves the browser
// (data:, blob:, about:), local URLs, and other http(s) and ws(s) hosts
// only with remote loads allowed (an attended run whose person approves
// each navigation; an unattended run never has them).
func TestAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url                string
		unattended, remote bool
	}{
		{"http://localhost:3000/", true, true},
		{"ws://[::1]:3000/", true, true},
		{"data:text/html,<p>hi</p>", true, true},
		{"DATA:text/plain,hi", true, true},
		{"blob:http://localhost:3000/4b1c", true, true},
		{"about:blank", true, true},
		{"https://example.com/", false, true},
		{"http://0.0.0.0:3000/", false, true},
		{"http://localhost@evil.example/", false, true},
		{"http://2130706433/", false, true},
		{"wss://evil.example/socket", false, true},
		{"file:///etc/passwd", false, false},
		{"file://localhost/etc/passwd", false, false},
		{"javascript:fetch('https://evil.example')", false, false},
		{"chrome://settings", false, false},
		{"ftp://example.com/", false, false},
		{"view-source:http://localhost/", false, false},
		{"filesystem:http://localhost/temporary/x", false, false},
		{"", false, false},
		{"http://[::1", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.unattended, allowed(tt.url, false), "remote loads not allowed")
			assert.Equal(t, tt.remote, allowed(tt.url, true), "remote loads allowed")
		})
	}
}

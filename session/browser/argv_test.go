package browser

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The browser's command line: the resolver rules are the second wall
// behind the interception, so a browser that may not load remote pages
// resolves no name but the loopback's; a profile of the run's own, no
// background traffic.
func TestArgv(t *testing.T) {
	t.Parallel()
	const rules = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1 , EXCLUDE [::1]"
	common := []string{"/usr/bin/chromium",
		"--remote-debugging-pipe",
		"--no-sandbox",
		"--user-data-dir=/box/profile",
		"--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps", "--disable-extensions",
		"--disable-dev-shm-usage", "--disable-gpu", "--mute-audio",
		"--metrics-recording-only", "--password-store=basic", "--use-mock-keychain",
		"--window-size=1280,800",
	}
	headless := []string{"--headless=new", "--hide-scrollbars"}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{name: "unattended, local only", cfg: Config{},
			want: append(append(append([]string{}, common...), headless...), rules, "about:blank")},
		{name: "remote allowed: no resolver rules", cfg: Config{AllowRemote: true},
			want: append(append(append([]string{}, common...), headless...), "about:blank")},
		{name: "headed, local only", cfg: Config{Headed: true},
			want: append(append([]string{}, common...), rules, "about:blank")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.cfg.Exec, tt.cfg.DataDir = "/usr/bin/chromium", "/box/profile"
			assert.Equal(t, tt.want, Argv(tt.cfg))
		})
	}
}

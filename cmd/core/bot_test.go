package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
)

// logLines hands on each line the bot logs.
type logLines struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines chan string
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		s := l.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		l.lines <- s[:i]
		l.buf.Reset()
		l.buf.WriteString(s[i+1:])
	}
	return len(p), nil
}

// TestBotServesUntilCancelled: core bot maps its flags, listens (on a free
// port here), answers /healthz, and shuts down when its context ends.
func TestBotServesUntilCancelled(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	pem, err := ghapps.New(g).AddApp(99)
	require.NoError(t, err)
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(keyFile, pem, 0o600))
	environ := map[string]string{"CORE_BOT_WEBHOOK_SECRET": "s", "CORE_BOT_API_URL": g.APIURL()}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	logs := &logLines{lines: make(chan string, 100)}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"bot", "--app-id", "99", "--private-key-file", keyFile, "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0"},
			nil, &writerBuffer{}, logs, func(k string) string { return environ[k] })
	}()
	var addr string
	timeout := time.After(testkit.Patience)
	for addr == "" {
		select {
		case line := <-logs.lines:
			var entry map[string]any
			if json.Unmarshal([]byte(line), &entry) == nil && entry["message"] == "Serving webhooks" {
				addr, _ = entry["listen"].(string)
			}
		case err := <-done:
			t.Fatalf("the bot ended before serving: %v", err)
		case <-timeout:
			t.Fatal("the bot did not say where it listens")
		}
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err, "a cancelled bot shuts down cleanly")
	case <-time.After(testkit.Patience):
		t.Fatal("the bot did not shut down")
	}
}

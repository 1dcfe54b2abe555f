package review

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// escapeTest is a node test that tries to write each of targets, to
// connect to the host's port, and to leave a detached "sleep token"
// running, then fails with what it managed.
const escapeTest = `const test = require('node:test');
const fs = require('node:fs');
const net = require('node:net');
const { spawn } = require('node:child_process');
test('escape', async () => {
  const tries = [];
  for (const p of %s) {
    try { fs.writeFileSync(p, 'escaped'); tries.push('wrote ' + p); } catch (e) { tries.push('could not write ' + p + ': ' + e.code); }
  }
  await new Promise((resolve) => {
    const s = net.connect(%d, '127.0.0.1');
    s.on('connect', () => { tries.push('connected'); s.destroy(); resolve(); });
    s.on('error', (e) => { tries.push('no network: ' + e.code); resolve(); });
    setTimeout(resolve, 1000);
  });
  spawn('sleep', ['%s'], { detached: true, stdio: 'ignore' }).unref();
  throw new Error('TRIED ' + tries.join('; '));
});
`

// TestReproductionIsConfined: a reproduction is confined like any check.
// One that writes to the clone, to the host's home, to the host's /tmp and
// to a folder beside them writes none of them; one that connects to a
// listener on the host's loopback does not reach it; a process it leaves
// running does not outlive its run.
func TestReproductionIsConfined(t *testing.T) {
	t.Parallel()
	c := newChange(t, map[string]string{"package.json": `{"name": "m", "version": "1.0.0"}` + "\n", "index.js": "module.exports = 1;\n"},
		map[string]string{"index.js": "module.exports = 2;\n"})
	h := harness(t, c, "node")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var reached atomic.Bool
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Store(true)
			conn.Close()
		}
	}()
	token := fmt.Sprintf("%d.%06d", 7000+rand.IntN(1000), rand.IntN(1000000))
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	beside := t.TempDir()
	targets := []string{
		filepath.Join(c.clone, "escaped-"+token),
		filepath.Join(c.clone, ".git", "escaped-"+token),
		filepath.Join(home, "escaped-"+token),
		filepath.Join(os.TempDir(), "escaped-"+token),
		filepath.Join(beside, "escaped-"+token),
	}
	quoted := make([]string, len(targets))
	for i, p := range targets {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	content := fmt.Sprintf(escapeTest, "["+strings.Join(quoted, ", ")+"]", ln.Addr().(*net.TCPAddr).Port, token)
	t.Cleanup(func() {
		for _, pid := range testkit.Sleepers(token) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, p := range targets {
			_ = os.Remove(p)
		}
	})

	got, err := h.Reproduce(t.Context(), Finding{File: "index.js", Line: 1, Claim: "it escapes", Reproduction: &Reproduction{
		Path: "escape.test.js", Content: content, Command: []string{"node", "--test", "escape.test.js"}, Expect: "TRIED"}})
	require.NoError(t, err)
	require.NotNil(t, got.Reproduction.Head, got.Why)
	assert.Contains(t, got.Reproduction.Head.Excerpt, "TRIED", "it ran: %+v", got.Reproduction.Head)
	for _, p := range targets {
		assert.NoFileExists(t, p, "the reproduction wrote outside its scratch copy")
	}
	assert.False(t, reached.Load(), "the reproduction reached the host's loopback")
	assert.Eventually(t, func() bool { return len(testkit.Sleepers(token)) == 0 }, testkit.Patience, 20*time.Millisecond,
		"a process the reproduction left outlived its run")
	assert.Empty(t, scratchLeft(t, c.clone), "the scratch copies are removed")
}

package bot

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/telemetry"
)

const (
	testAppID          = 4242
	testInstallationID = 77
	testSecret         = "webhook-secret-for-tests"
)

// fixture is a bot against the testkit GitHub, with octo/hello installed.
type fixture struct {
	g       *ghfake.GitHub
	apps    *ghapps.Apps
	repo    *ghfake.Repo
	cfg     *Config
	bot     *Bot
	store   Store
	http    *httptest.Server
	dataDir string
	// options sets local runs up; nil is setup with env.
	options func(context.Context) (session.Options, error)
	env     map[string]string
	// tel, when set before a (re)start, traces the bot (telemetry_test.go).
	tel *telemetry.Telemetry

	handled  chan struct{} // one per delivery handled
	mu       sync.Mutex
	expected int // deliveries accepted for a handler
	seen     int // of them, handled
}

// handledEvents are the events the bot has a handler for.
var handledEvents = map[string]bool{"issue_comment": true, "issues": true, "pull_request": true, "workflow_run": true}

func newFixture(t testing.TB, edit func(*Config), options func(context.Context) (session.Options, error)) *fixture {
	t.Helper()
	g := ghfake.NewGitHub(t)
	apps := ghapps.New(g)
	pem, err := apps.AddApp(testAppID)
	require.NoError(t, err)
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{
		"hello.txt":                  "hello\n",
		".github/workflows/core.yml": "on:\n  workflow_dispatch:\n",
	})
	require.NoError(t, apps.AddInstallation(testAppID, testInstallationID, "octo"))
	require.NoError(t, g.SetPermission("octo", "hello", "alice", "write"))
	require.NoError(t, g.SetPermission("octo", "hello", "rita", "read"))
	f := &fixture{g: g, apps: apps, repo: repo, dataDir: t.TempDir(), options: options, handled: make(chan struct{}, 1<<16)}
	f.cfg = &Config{AppID: testAppID, PrivateKey: pem, WebhookSecret: testSecret, APIURL: g.APIURL(), DataDir: f.dataDir, Workers: 2, Queue: 50}
	if edit != nil {
		edit(f.cfg)
	}
	f.start(t)
	return f
}

// newBot builds another bot on the fixture's configuration and data
// directory, as a restarted process would.
func (f *fixture) newBot(t testing.TB) *Bot {
	t.Helper()
	cfg := *f.cfg
	b, err := New(t.Context(), &cfg, Deps{
		Logger: zerolog.Nop(), SessionOptions: f.options,
		Getenv:    func(k string) string { return f.env[k] },
		Handled:   func() { f.handled <- struct{}{} },
		Telemetry: f.tel,
	})
	require.NoError(t, err)
	return b
}

// start builds the bot, settles what a previous one left (Recover) and
// serves it (again, after stop: a restart).
func (f *fixture) start(t testing.TB) {
	t.Helper()
	b := f.newBot(t)
	_, err := b.Recover(t.Context())
	require.NoError(t, err)
	f.bot, f.store, f.http = b, b.Store(), httptest.NewServer(b)
	t.Cleanup(f.stop)
}

func (f *fixture) stop() {
	if f.http != nil {
		f.http.Close()
		f.http = nil
		_ = f.bot.Shutdown(context.Background())
	}
}

// settle waits until every delivery accepted for a handler was handled:
// it waits on the handlers' own word, not on silence.
func (f *fixture) settle(t testing.TB) {
	t.Helper()
	timeout := time.NewTimer(testkit.Patience)
	defer timeout.Stop()
	f.mu.Lock()
	expected := f.expected
	f.mu.Unlock()
	for f.seen < expected {
		select {
		case <-f.handled:
			f.seen++
		case <-timeout.C:
			t.Fatalf("%d of %d deliveries handled after %s", f.seen, expected, testkit.Patience)
		}
	}
}

// deliver sends a signed webhook delivery and returns the status code.
func (f *fixture) deliver(t testing.TB, event, delivery string, payload []byte) int {
	t.Helper()
	code := deliverTo(t, f.http.URL, testSecret, event, delivery, payload)
	if code/100 == 2 && handledEvents[event] {
		f.mu.Lock()
		f.expected++
		f.mu.Unlock()
	}
	return code
}

func deliverTo(t testing.TB, url, secret, event, delivery string, payload []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+WebhookPath, bytes.NewReader(payload))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", sign(secret, payload))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func sign(secret string, payload []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(payload)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// examples are the real payloads of @octokit/webhooks-examples.
type examples map[string][]map[string]any

var loadExamples = sync.OnceValues(func() (examples, error) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", ".fixtures", "webhooks", "api.github.com", "index.json"))
	if err != nil {
		return nil, err
	}
	var index []struct {
		Name     string           `json:"name"`
		Examples []map[string]any `json:"examples"`
	}
	if err := json.Unmarshal(b, &index); err != nil {
		return nil, err
	}
	out := examples{}
	for _, e := range index {
		out[e.Name] = e.Examples
	}
	return out, nil
})

// TestMain checks the webhook examples once: missing under
// CORE_REQUIRE_FIXTURES=1, the package fails with one clear message
// instead of a failure per test; otherwise the tests that need them skip.
func TestMain(m *testing.M) {
	if _, err := loadExamples(); err != nil && os.Getenv("CORE_REQUIRE_FIXTURES") == "1" {
		fmt.Fprintf(os.Stderr, "bot tests: the webhook examples are missing: run ./scripts/fixtures.sh (%v)\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// requireExamples returns the examples, or skips when they were not
// fetched; under CORE_REQUIRE_FIXTURES=1 it fails instead (TestMain has
// already stopped the package then, but a test must not rely on that).
func requireExamples(t testing.TB) examples {
	t.Helper()
	ex, err := loadExamples()
	if err != nil {
		if os.Getenv("CORE_REQUIRE_FIXTURES") == "1" {
			t.Fatalf("the webhook examples are missing under CORE_REQUIRE_FIXTURES=1 (run ./scripts/fixtures.sh): %v", err)
		}
		t.Skipf("the webhook examples are missing (run ./scripts/fixtures.sh): %v", err)
	}
	return ex
}

// payload returns a real example of event with action, edited: each key of
// edits is a dotted path, a nil value deletes it.
func payload(t testing.TB, event, action string, edits map[string]any) []byte {
	t.Helper()
	var m map[string]any
	for _, ex := range requireExamples(t)[event] {
		if a, _ := ex["action"].(string); a == action {
			b, _ := json.Marshal(ex)
			require.NoError(t, json.Unmarshal(b, &m))
			break
		}
	}
	require.NotNil(t, m, "no example of %s %s", event, action)
	base := map[string]any{
		"installation.id":           testInstallationID,
		"repository.name":           "hello",
		"repository.full_name":      "octo/hello",
		"repository.owner.login":    "octo",
		"repository.default_branch": "main",
	}
	for k, v := range base {
		set(m, k, v)
	}
	for k, v := range edits {
		set(m, k, v)
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func set(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

// commentPayload is a /core-style comment by login on issue number.
// accountID is the GitHub id of the test account login: one per login, in
// any letter case.
func accountID(login string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.ToLower(login)))
	return int64(h.Sum32()) + 1
}

func commentPayload(t testing.TB, login, userType string, number int, commentID int64, body string, onPull bool) []byte {
	t.Helper()
	edits := map[string]any{
		"comment.id": commentID, "comment.body": body, "comment.user.login": login, "comment.user.type": userType,
		"issue.number": number, "issue.pull_request": nil, "sender.login": login, "sender.type": userType,
		// Each account its own id, as on GitHub (the examples share one).
		"comment.user.id": accountID(login), "sender.id": accountID(login),
	}
	if onPull {
		edits["issue.pull_request"] = map[string]any{"url": "x"}
	}
	return payload(t, "issue_comment", "created", edits)
}

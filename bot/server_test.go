package bot

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryExamplePayload delivers every example payload of every event,
// signed: each is answered 2xx and none panics.
func TestEveryExamplePayload(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.Queue = 5000 }, nil)
	n := 0
	for event, list := range requireExamples(t) {
		for i, ex := range list {
			b, err := json.Marshal(ex)
			require.NoError(t, err)
			code := f.deliver(t, event, fmt.Sprintf("ex-%s-%d", event, i), b)
			assert.True(t, code >= 200 && code < 300, "%s #%d answered %d", event, i, code)
			n++
		}
	}
	f.settle(t)
	t.Logf("delivered %d example payloads", n)
	assert.Greater(t, n, 300)
	resp, err := http.Get(f.http.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the bot is still up")
}

func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	resp, err := http.Get(f.http.URL + "/healthz")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "ok\n", string(b))

	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "m-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	f.settle(t)
	resp, err = http.Get(f.http.URL + "/metrics")
	require.NoError(t, err)
	var m map[string]float64
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	resp.Body.Close()
	assert.Equal(t, float64(1), m["core.deliveries"])
	assert.Equal(t, float64(1), m["core.runs.started"])
	for _, k := range []string{"github.event.queued", "github.event.dropped", "core.runs.done", "core.runs.failed"} {
		_, ok := m[k]
		assert.True(t, ok, "metric %s", k)
	}
}

func TestConfigErrorsNameTheSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{name: "empty", cfg: Config{}, want: []string{"CORE_BOT_APP_ID", "CORE_BOT_PRIVATE_KEY", "CORE_BOT_WEBHOOK_SECRET", "CORE_BOT_DATA_DIR"}},
		{name: "bad values", cfg: Config{AppID: 1, PrivateKey: []byte("not a key"), WebhookSecret: "s", DataDir: "/x", Dispatch: "cloud", APIURL: "ftp://x", Workers: -1},
			want: []string{"is not a PEM private key", `CORE_BOT_DISPATCH (--dispatch) must be actions or local, got "cloud"`, "CORE_BOT_API_URL", "CORE_BOT_WORKERS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.cfg.Validate()
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	good := Config{AppID: 1, PrivateKey: []byte("-----BEGIN RSA PRIVATE KEY-----\nx"), WebhookSecret: "s", DataDir: "/x"}
	require.NoError(t, good.Validate())
	assert.Equal(t, ":8080", good.Listen)
	assert.Equal(t, "core.yml", good.Workflow)
	assert.Equal(t, DispatchActions, good.Dispatch)
	assert.True(t, strings.HasSuffix(good.v4URL(), "/graphql"))
}

package ghapps

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitHubDeviceFlow(t *testing.T) {
	t.Parallel()
	post := func(t *testing.T, g *double, path string, form url.Values, accept string) (string, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, g.URL+path, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type"), b
	}
	start := func(t *testing.T, g *double, id string) map[string]any {
		_, b := post(t, g, "/login/device/code", url.Values{"client_id": {id}}, "application/json")
		var out map[string]any
		require.NoError(t, json.Unmarshal(b, &out), string(b))
		return out
	}
	tests := []struct {
		name  string
		act   func(g *double, userCode string, clock *time.Time) error
		error string
		login string
	}{
		{name: "pending", act: func(*double, string, *time.Time) error { return nil }, error: "authorization_pending"},
		{name: "approved", act: func(g *double, c string, _ *time.Time) error { return g.ApproveDevice(c, "owner") }, login: "owner"},
		{name: "denied", act: func(g *double, c string, _ *time.Time) error { return g.DenyDevice(c) }, error: "access_denied"},
		{name: "expired", act: func(_ *double, _ string, clock *time.Time) error { *clock = clock.Add(901 * time.Second); return nil }, error: "expired_token"},
		{name: "slow down", act: func(g *double, c string, _ *time.Time) error { return g.SlowDownDevice(c) }, error: "slow_down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, _ := newAppGitHub(t)
			id, _, err := g.AppOAuth(testAppID)
			require.NoError(t, err)
			clock := time.Unix(1_700_000_000, 0)
			g.SetDeviceFlow(DeviceFlow{Interval: 5, Now: func() time.Time { return clock }})
			code := start(t, g, id)
			assert.EqualValues(t, 5, code["interval"])
			assert.EqualValues(t, 900, code["expires_in"])
			assert.Equal(t, g.URL+"/login/device", code["verification_uri"])
			userCode, _ := code["user_code"].(string)
			assert.Equal(t, []string{userCode}, g.DeviceCodes())
			require.NoError(t, tt.act(g, userCode, &clock))
			_, b := post(t, g, "/login/oauth/access_token", url.Values{
				"client_id": {id}, "device_code": {code["device_code"].(string)}, "grant_type": {deviceGrant},
			}, "application/json")
			var out map[string]any
			require.NoError(t, json.Unmarshal(b, &out), string(b))
			got, _ := out["error"].(string)
			assert.Equal(t, tt.error, got, string(b))
			if tt.error == "slow_down" {
				assert.EqualValues(t, 10, out["interval"], "slow_down adds five seconds")
			}
			if tt.login != "" {
				status, body := getWith(t, g, "/user", out["access_token"].(string))
				assert.Equal(t, http.StatusOK, status)
				assert.Equal(t, tt.login, body["login"])
			}
		})
	}
	t.Run("too soon, then a bad client, then a form", func(t *testing.T) {
		t.Parallel()
		g, _ := newAppGitHub(t)
		id, _, err := g.AppOAuth(testAppID)
		require.NoError(t, err)
		clock := time.Unix(1_700_000_000, 0)
		g.SetDeviceFlow(DeviceFlow{Interval: 5, Now: func() time.Time { return clock }})
		code := start(t, g, id)
		poll := url.Values{"client_id": {id}, "device_code": {code["device_code"].(string)}, "grant_type": {deviceGrant}}
		_, b := post(t, g, "/login/oauth/access_token", poll, "application/json")
		assert.Contains(t, string(b), "authorization_pending")
		clock = clock.Add(2 * time.Second)
		_, b = post(t, g, "/login/oauth/access_token", poll, "application/json")
		assert.Contains(t, string(b), `"slow_down"`, "polled two seconds after the last, interval five")
		clock = clock.Add(10 * time.Second)
		typ, b := post(t, g, "/login/oauth/access_token", poll, "")
		assert.Contains(t, typ, "x-www-form-urlencoded")
		form, err := url.ParseQuery(string(b))
		require.NoError(t, err)
		assert.Equal(t, "authorization_pending", form.Get("error"))
		assert.Equal(t, "incorrect_client_credentials", start(t, g, "nope")["error"])
	})
}

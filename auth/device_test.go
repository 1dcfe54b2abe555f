package auth_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/auth"
	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
)

const appID = 4242

// fakeClock is shared by the flow and the double: waiting advances it, and
// each wait may act as the user (approve, deny) before the next poll.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	waits  []time.Duration
	onWait func(n int)
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Wait(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.waits = append(c.waits, d)
	n := len(c.waits)
	c.mu.Unlock()
	if c.onWait != nil {
		c.onWait(n)
	}
	return ctx.Err()
}

func newGitHub(t *testing.T) (*ghfake.GitHub, *ghapps.Apps, string) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	apps := ghapps.New(g)
	_, err := apps.AddApp(appID)
	require.NoError(t, err)
	id, _, err := apps.AppOAuth(appID)
	require.NoError(t, err)
	return g, apps, id
}

func TestLogin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		user     func(apps *ghapps.Apps, code string, n int) error // before poll n
		expiring bool
		waits    []time.Duration
		err      error
	}{
		{name: "approved on the third poll", user: func(apps *ghapps.Apps, code string, n int) error {
			if n == 3 {
				return apps.ApproveDevice(code, "octo")
			}
			return nil
		}, waits: []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second}},
		{name: "slow_down adds five seconds", user: func(apps *ghapps.Apps, code string, n int) error {
			switch n {
			case 1:
				return apps.SlowDownDevice(code)
			case 3:
				return apps.ApproveDevice(code, "octo")
			}
			return nil
		}, waits: []time.Duration{5 * time.Second, 10 * time.Second, 10 * time.Second}},
		{name: "denied", user: func(apps *ghapps.Apps, code string, n int) error {
			if n == 2 {
				return apps.DenyDevice(code)
			}
			return nil
		}, waits: []time.Duration{5 * time.Second, 5 * time.Second}, err: auth.ErrDenied},
		{name: "expired", user: func(*ghapps.Apps, string, int) error { return nil },
			waits: make([]time.Duration, 180), err: auth.ErrExpired},
		{name: "expiring tokens carry a refresh token", expiring: true, user: func(apps *ghapps.Apps, code string, n int) error {
			return apps.ApproveDevice(code, "octo")
		}, waits: []time.Duration{5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, apps, id := newGitHub(t)
			clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
			apps.SetDeviceFlow(ghapps.DeviceFlow{Interval: 5, Now: clock.Now, Expiring: tt.expiring})
			var userErr error
			clock.onWait = func(n int) {
				codes := apps.DeviceCodes()
				if err := tt.user(apps, codes[len(codes)-1], n); err != nil {
					userErr = err
				}
			}
			var opened []string
			f := &auth.Flow{WebURL: g.URL, ClientID: id, Wait: clock.Wait, Now: clock.Now,
				Open: func(_ context.Context, u string) error { opened = append(opened, u); return nil }}
			var out bytes.Buffer
			tok, err := f.Login(t.Context(), &out)
			require.NoError(t, userErr)
			assert.Equal(t, []string{g.URL + "/login/device"}, opened)
			assert.Contains(t, out.String(), apps.DeviceCodes()[0])
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				if tt.err == auth.ErrExpired {
					assert.Len(t, clock.waits, 180, "900 seconds of five-second polls")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.waits, clock.waits)
			assert.NotContains(t, out.String(), tok.AccessToken)
			login, err := auth.User(t.Context(), nil, g.URL, tok.AccessToken)
			require.NoError(t, err)
			assert.Equal(t, "octo", login)
			if tt.expiring {
				assert.NotEmpty(t, tok.RefreshToken)
				assert.Equal(t, clock.Now().UTC().Add(8*time.Hour), tok.ExpiresAt)
			} else {
				assert.True(t, tok.ExpiresAt.IsZero())
			}
		})
	}
}

func TestLoginRefusals(t *testing.T) {
	t.Parallel()
	g, _, _ := newGitHub(t)
	f := &auth.Flow{WebURL: g.URL, ClientID: "Iv1.nope"}
	_, err := f.Request(t.Context())
	var oe *auth.OAuthError
	require.True(t, errors.As(err, &oe), "%v", err)
	assert.Equal(t, "incorrect_client_credentials", oe.Code)

	_, err = (&auth.Flow{WebURL: g.URL}).Request(t.Context())
	assert.ErrorContains(t, err, "--client-id")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, id := newGitHub(t)
	_, err = (&auth.Flow{WebURL: g.URL, ClientID: id}).Poll(ctx, auth.Code{DeviceCode: "x", Interval: 5})
	assert.ErrorIs(t, err, context.Canceled, "a cancelled poll stops waiting")
}

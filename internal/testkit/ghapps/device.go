package ghapps

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// The OAuth device flow of a GitHub App, on the web host, in GitHub's wire
// format: POST /login/device/code hands out a device code and a user code;
// POST /login/oauth/access_token with grant_type
// urn:ietf:params:oauth:grant-type:device_code answers
// authorization_pending until a test approves the user code (ApproveDevice,
// as the user would on /login/device), access_denied once it is denied,
// expired_token past expires_in, and slow_down (the interval grows by five
// seconds) to a poll sooner than the interval or after SlowDownDevice.

const deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

// DeviceFlow sets how the double's device flow behaves.
type DeviceFlow struct {
	// Interval is the polling interval in seconds it hands out (GitHub: 5).
	Interval int
	// ExpiresIn is the codes' lifetime in seconds (GitHub: 900).
	ExpiresIn int
	// Now is its clock (default time.Now), so a test with a fake clock on
	// both sides waits for nothing.
	Now func() time.Time
	// AutoApprove, when set, approves every new code as this login.
	AutoApprove string
	// Expiring makes the tokens expire after eight hours, with a refresh
	// token, as an App with expiring user tokens does.
	Expiring bool
}

type deviceState struct {
	app        int64
	deviceCode string
	userCode   string
	interval   int
	expires    time.Time
	lastPoll   time.Time
	login      string // approved as
	denied     bool
	slowDown   bool
	used       bool
}

// SetDeviceFlow sets the device flow's behaviour for the codes handed out
// from now on.
func (a *Apps) SetDeviceFlow(f DeviceFlow) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deviceFlow = f
}

// DeviceCodes returns the user codes handed out so far, oldest first.
func (a *Apps) DeviceCodes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, d := range a.devices {
		out = append(out, d.userCode)
	}
	return out
}

// ApproveDevice authorises userCode as login, as the user does on the
// verification page.
func (a *Apps) ApproveDevice(userCode, login string) error {
	return a.device(userCode, func(d *deviceState) { d.login = login })
}

// DenyDevice refuses userCode, as the user's "Cancel" does.
func (a *Apps) DenyDevice(userCode string) error {
	return a.device(userCode, func(d *deviceState) { d.denied = true })
}

// SlowDownDevice makes the next poll of userCode answer slow_down.
func (a *Apps) SlowDownDevice(userCode string) error {
	return a.device(userCode, func(d *deviceState) { d.slowDown = true })
}

func (a *Apps) device(userCode string, f func(*deviceState)) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.devices {
		if d.userCode == userCode {
			f(d)
			return nil
		}
	}
	return fmt.Errorf("device flow: no user code %q (see DeviceCodes)", userCode)
}

func (f DeviceFlow) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// POST /login/device/code with client_id (and scope).
func (a *Apps) deviceCode(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	a.gh.Record(ghfake.Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Status: http.StatusOK})
	a.mu.Lock()
	app := a.appByClientLocked(r.Form.Get("client_id"))
	if app == nil {
		a.mu.Unlock()
		writeOAuth(w, r, oauthError("incorrect_client_credentials", "The client_id passed is incorrect."))
		return
	}
	f := a.deviceFlow
	interval, expires := f.Interval, f.ExpiresIn
	if expires == 0 {
		expires = 900
	}
	code := strings.ToUpper(rand.Text())
	d := &deviceState{
		app: app.id, deviceCode: strings.ToLower(rand.Text()) + strings.ToLower(rand.Text())[:8],
		userCode: code[:4] + "-" + code[4:8], interval: interval,
		expires: f.now().Add(time.Duration(expires) * time.Second), login: f.AutoApprove,
	}
	a.devices = append(a.devices, d)
	a.mu.Unlock()
	writeOAuth(w, r, map[string]any{
		"device_code": d.deviceCode, "user_code": d.userCode,
		"verification_uri": a.gh.URL + "/login/device", "expires_in": expires, "interval": interval,
	})
}

// deviceToken answers a poll of the device flow. Callers hold no lock.
func (a *Apps) deviceToken(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	answer := a.deviceTokenLocked(r.Form.Get("client_id"), r.Form.Get("device_code"))
	a.mu.Unlock()
	writeOAuth(w, r, answer)
}

func (a *Apps) deviceTokenLocked(clientID, deviceCode string) map[string]any {
	app := a.appByClientLocked(clientID)
	if app == nil {
		return oauthError("incorrect_client_credentials", "The client_id passed is incorrect.")
	}
	var d *deviceState
	for _, x := range a.devices {
		if x.deviceCode == deviceCode && x.app == app.id {
			d = x
		}
	}
	f := a.deviceFlow
	now := f.now()
	switch {
	case d == nil || d.used:
		return oauthError("incorrect_device_code", "The device_code provided is not valid.")
	case !now.Before(d.expires):
		return oauthError("expired_token", "The device_code has expired.")
	case d.denied:
		return oauthError("access_denied", "The authorization request was denied.")
	case d.slowDown || (!d.lastPoll.IsZero() && now.Sub(d.lastPoll) < time.Duration(d.interval)*time.Second):
		d.slowDown = false
		d.lastPoll = now
		d.interval += 5
		e := oauthError("slow_down", "Too many requests have been made in the same timeframe.")
		e["interval"] = d.interval
		return e
	}
	d.lastPoll = now
	if d.login == "" {
		return oauthError("authorization_pending", "The authorization request is still pending.")
	}
	d.used = true
	answer := map[string]any{"access_token": a.userTokenLocked(app.id, d.login), "token_type": "bearer", "scope": ""}
	if f.Expiring {
		answer["expires_in"] = 28800
		answer["refresh_token"] = "ghr_" + rand.Text()
		answer["refresh_token_expires_in"] = 15811200
	}
	return answer
}

func oauthError(code, description string) map[string]any {
	return map[string]any{
		"error": code, "error_description": description,
		"error_uri": "https://docs.github.com/developers/apps/authorizing-oauth-apps#" + strings.ReplaceAll(code, "_", "-"),
	}
}

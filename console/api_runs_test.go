package console

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReporters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	tests := []struct {
		name        string
		token       func(h *harness) string
		want        int
		wantTrigger string
		wantActor   string
		wantReason  string
	}{
		{name: "installation token of the App", token: func(h *harness) string { return h.install }, want: http.StatusCreated, wantTrigger: TriggerAction, wantActor: "core-app[bot]"},
		{name: "user token of the App", token: func(h *harness) string { return h.alice }, want: http.StatusCreated, wantTrigger: TriggerCLI, wantActor: "alice"},
		{name: "installation token of another app", token: func(h *harness) string { return h.foreignInstall }, want: http.StatusForbidden, wantReason: "acts as other-app[bot], not as this App"},
		{name: "installation token for another organisation", token: func(h *harness) string { return h.elsewhereInstall }, want: http.StatusForbidden, wantReason: "not for acme"},
		{name: "user token of another app", token: func(h *harness) string { return h.aliceForeign }, want: http.StatusForbidden, wantReason: "cannot see this GitHub App's installation on acme"},
		{name: "user who cannot see the installation", token: func(h *harness) string { return h.mallory }, want: http.StatusForbidden, wantReason: "the token of mallory cannot see"},
		{name: "personal token", token: func(h *harness) string { return h.pat }, want: http.StatusForbidden, wantReason: "not a user token of this GitHub App"},
		{name: "token GitHub does not know", token: func(*harness) string { return "ghp_nonsense" }, want: http.StatusForbidden, wantReason: "GitHub does not accept the token"},
		{name: "no token", token: func(*harness) string { return "" }, want: http.StatusUnauthorized, wantReason: "no credentials"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "s-" + strconv.Itoa(i)
			status, body := h.call(t, http.MethodPost, "/api/session-runs", tt.token(h), report(id, "succeeded", ""))
			require.Equal(t, tt.want, status, string(body))
			run, err := h.store.GetRun(t.Context(), id)
			if tt.wantReason != "" {
				assert.Contains(t, string(body), tt.wantReason, "the refusal says why")
				assert.ErrorIs(t, err, ErrNotFound, "a refused report is stored nowhere")
				e := h.lastAudit(t)
				assert.Equal(t, "refuse", e.Action)
				assert.Contains(t, e.Reason, tt.wantReason)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantTrigger, run.Trigger)
			assert.Equal(t, tt.wantActor, run.Actor)
			assert.Equal(t, 2*time.Minute, run.Duration)
			assert.Equal(t, 1200, run.Tokens)
			assert.Equal(t, "report", h.lastAudit(t).Action)
		})
	}
}

func TestReportRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	tests := []struct {
		name, body string
		want       int
		wantErr    string
	}{
		{name: "another organisation's repository", body: `{"id":"s1","repo":"elsewhere/thing","status":"succeeded"}`, want: http.StatusForbidden, wantErr: "not in acme"},
		{name: "no session id", body: `{"repo":"acme/app","status":"succeeded"}`, want: http.StatusBadRequest, wantErr: "must be the session id"},
		{name: "bad repository", body: `{"id":"s1","repo":"app","status":"succeeded"}`, want: http.StatusBadRequest, wantErr: "repo must be owner/name"},
		{name: "not JSON", body: `report`, want: http.StatusBadRequest, wantErr: "read the report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, tt.body)
			assert.Equal(t, tt.want, status)
			assert.Contains(t, string(body), tt.wantErr)
			e := h.lastAudit(t)
			assert.Equal(t, "refuse", e.Action, "every refusal is audited")
			assert.Equal(t, "alice", e.Actor)
			assert.Contains(t, e.Reason, tt.wantErr)
		})
	}
}

func TestReportSentTwice(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, _ := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s1", "running", ""))
	assert.Equal(t, http.StatusCreated, status)
	status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s1", "succeeded", `,"contract":{"verdict":"held","checks":[]}`))
	assert.Equal(t, http.StatusOK, status, string(body))
	status, body = h.call(t, http.MethodGet, "/api/session-runs", h.bob, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var list struct{ Runs []*Run }
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list.Runs, 1, "a re-send replaces, never duplicates")
	assert.Equal(t, "succeeded", list.Runs[0].Status)
	assert.Equal(t, "held", list.Runs[0].Verdict)
}

func TestListRunsFilters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s1", "succeeded", ""))
	h.call(t, http.MethodPost, "/api/session-runs", h.bob, report("s2", "failed", ""))
	tests := []struct{ query, want string }{
		{"?who=alice", "s1"}, {"?status=failed", "s2"}, {"?repo=acme/app&who=bob", "s2"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			status, body := h.call(t, http.MethodGet, "/api/session-runs"+tt.query, h.install, nil)
			require.Equal(t, http.StatusOK, status)
			var list struct{ Runs []*Run }
			require.NoError(t, json.Unmarshal(body, &list))
			require.Len(t, list.Runs, 1)
			assert.Equal(t, tt.want, list.Runs[0].SessionID)
		})
	}
	status, _ := h.call(t, http.MethodGet, "/api/session-runs", h.foreignInstall, nil)
	assert.Equal(t, http.StatusForbidden, status, "listing needs the App's rights too")
}

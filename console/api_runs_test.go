package console

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
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

func TestReportOwner(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	install2, err := h.apps.InstallationToken(7)
	require.NoError(t, err)
	status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("mine", "succeeded", `,"contract":{"verdict":"broken"}`))
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = h.call(t, http.MethodPost, "/api/session-runs", h.install, report("theirs", "succeeded", ""))
	require.Equal(t, http.StatusCreated, status, string(body))

	tests := []struct {
		name, id  string
		token     func(h *harness) string
		want      int
		wantActor string // the run's actor afterwards
		wantErr   string
	}{
		{name: "another user", id: "mine", token: func(h *harness) string { return h.bob }, want: http.StatusForbidden, wantActor: "alice", wantErr: "run mine was reported by alice"},
		{name: "the App's installation over a user's run", id: "mine", token: func(h *harness) string { return h.install }, want: http.StatusForbidden, wantActor: "alice", wantErr: "only the identity that first reports"},
		{name: "a user over a workflow's run", id: "theirs", token: func(h *harness) string { return h.bob }, want: http.StatusForbidden, wantActor: "core-app[bot]", wantErr: "a workflow's installation token"},
		{name: "the same user with another token", id: "mine", token: func(h *harness) string { return h.alice2 }, want: http.StatusOK, wantActor: "alice"},
		{name: "the same installation with another token", id: "theirs", token: func(*harness) string { return install2 }, want: http.StatusOK, wantActor: "core-app[bot]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := h.store.GetRun(t.Context(), tt.id)
			require.NoError(t, err)
			status, body := h.call(t, http.MethodPost, "/api/session-runs", tt.token(h), report(tt.id, "failed", `,"contract":{"verdict":"held"}`))
			require.Equal(t, tt.want, status, string(body))
			after, err := h.store.GetRun(t.Context(), tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.wantActor, after.Actor)
			if tt.wantErr == "" {
				assert.Equal(t, "failed", after.Status, "the owner replaces its run")
				assert.Equal(t, "held", after.Verdict)
				assert.Equal(t, "report", h.lastAudit(t).Action)
				return
			}
			assert.Contains(t, string(body), tt.wantErr)
			assert.Equal(t, before, after, "a refused report leaves the run as it was")
			e := h.lastAudit(t)
			assert.Equal(t, "refuse", e.Action, "the refusal is audited")
			assert.Contains(t, e.Reason, tt.wantErr)
		})
	}
}

func TestReportNeedsAccessToTheRepository(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	lib := func(id string) string {
		return `{"id":"` + id + `","repo":"acme/lib","status":"succeeded","started_at":"2026-12-01T08:00:00Z"}`
	}
	status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, lib("s-alice"))
	assert.Equal(t, http.StatusForbidden, status, string(body))
	assert.Contains(t, string(body), "acme/lib, which alice cannot see on GitHub")
	_, err := h.store.GetRun(t.Context(), "s-alice")
	assert.ErrorIs(t, err, ErrNotFound, "a report about a repository its reporter cannot see is stored nowhere")
	e := h.lastAudit(t)
	assert.Equal(t, "refuse", e.Action)
	assert.Equal(t, "alice", e.Actor)

	status, body = h.call(t, http.MethodPost, "/api/session-runs", h.bob, lib("s-bob"))
	assert.Equal(t, http.StatusCreated, status, "bob reads acme/lib: %s", body)
	assert.True(t, slices.ContainsFunc(h.g.Requests(), func(r ghfake.Request) bool {
		return r.Method == http.MethodGet && r.Path == "/repos/acme/lib" && r.Login == "bob"
	}), "the console asked GitHub with the reporter's own token")
}

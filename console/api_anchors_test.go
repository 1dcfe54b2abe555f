package console

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claimOne queues an instruction for alice and claims it.
func (h *harness) claimOne(t *testing.T) *Command {
	t.Helper()
	status, body := h.call(t, http.MethodPost, "/api/session-commands", h.alice, map[string]any{"repo": "acme/app", "instruction": "go"})
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = h.call(t, http.MethodGet, "/api/session-commands", h.alice, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	return command(t, body)
}

func resultPath(c *Command) string {
	return "/api/session-commands/" + strconv.FormatInt(c.ID, 10) + "/result"
}

func anchorsOf(t *testing.T, h *harness, token, query string) []*Anchor {
	t.Helper()
	status, body := h.call(t, http.MethodGet, "/api/audit-anchors"+query, token, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var out struct{ Anchors []*Anchor }
	require.NoError(t, json.Unmarshal(body, &out))
	return out.Anchors
}

// TestResultsAnchorTheAuditTrail: a result carries its trail's head; the
// console keeps it for the caller, lists it back to the caller only, and a
// different head at a kept line is audited and does not replace it.
func TestResultsAnchorTheAuditTrail(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	chain, head, other := strings.Repeat("c", 64), strings.Repeat("a", 64), strings.Repeat("b", 64)

	first := h.claimOne(t)
	status, body := h.call(t, http.MethodPost, resultPath(first), h.alice,
		Result{Claim: first.Claim, Status: "succeeded", Audit: &AnchorPoint{Chain: chain, Seq: 3, Head: head}})
	require.Equal(t, http.StatusOK, status, string(body))
	assert.NotContains(t, string(body), head, "the anchor is kept apart from the result")

	got := anchorsOf(t, h, h.alice2, "?chain="+chain)
	require.Len(t, got, 1)
	assert.Equal(t, AnchorPoint{Chain: chain, Seq: 3, Head: head}, got[0].AnchorPoint)
	assert.Equal(t, "alice", got[0].Login)
	assert.Equal(t, first.ID, got[0].Command)
	assert.Empty(t, anchorsOf(t, h, h.bob, ""), "bob sees only his own anchors")
	assert.Empty(t, anchorsOf(t, h, h.alice, "?chain="+other))

	second := h.claimOne(t)
	status, body = h.call(t, http.MethodPost, resultPath(second), h.alice,
		Result{Claim: second.Claim, Status: "succeeded", Audit: &AnchorPoint{Chain: chain, Seq: 3, Head: other}})
	require.Equal(t, http.StatusOK, status, "the result itself is recorded: %s", body)
	got = anchorsOf(t, h, h.alice, "")
	require.Len(t, got, 1)
	assert.Equal(t, head, got[0].Head, "the first head stays")
	log, err := h.store.AuditLog(t.Context(), 5)
	require.NoError(t, err)
	assert.True(t, func() bool {
		for _, e := range log {
			if e.Action == "anchor-conflict" && strings.Contains(e.Reason, "the trail was rewritten") {
				return true
			}
		}
		return false
	}(), "the rewrite is audited")

	tests := []struct {
		name   string
		anchor AnchorPoint
	}{
		{name: "chain not a hash", anchor: AnchorPoint{Chain: "x", Seq: 1, Head: head}},
		{name: "head in upper case", anchor: AnchorPoint{Chain: chain, Seq: 1, Head: strings.ToUpper(head)}},
		{name: "line zero", anchor: AnchorPoint{Chain: chain, Seq: 0, Head: head}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := h.claimOne(t)
			status, body := h.call(t, http.MethodPost, resultPath(c), h.alice, Result{Claim: c.Claim, Status: "succeeded", Audit: &tt.anchor})
			assert.Equal(t, http.StatusBadRequest, status)
			assert.Contains(t, string(body), "audit must be")
			assert.Equal(t, "refuse", h.lastAudit(t).Action)
		})
	}
	status, _ = h.call(t, http.MethodGet, "/api/audit-anchors", h.install, nil)
	assert.Equal(t, http.StatusForbidden, status, "anchors are a user's")
	status, _ = h.call(t, http.MethodGet, "/api/audit-anchors?chain=nope", h.alice, nil)
	assert.Equal(t, http.StatusBadRequest, status)
}

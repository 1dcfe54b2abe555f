package console

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
)

// sha256Hex is a SHA-256 as hex, as serve's audit trail writes it.
var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

func validAnchor(p *AnchorPoint) error {
	if !sha256Hex.MatchString(p.Chain) || !sha256Hex.MatchString(p.Head) || p.Seq < 1 {
		return fmt.Errorf("audit must be {\"chain\", \"seq\", \"head\"}: two SHA-256s in lower-case hex and a line number from 1, got chain %q, seq %d, head %q", p.Chain, p.Seq, p.Head)
	}
	return nil
}

// anchor keeps the audit trail's position that the accepted result of
// command n carried. A head that differs from one kept at the same line
// is audited (the trail was rewritten) and does not replace it. A store
// failure is logged and audited: the result is recorded all the same, and
// the next result's anchor covers this line too.
func (c *Console) anchor(r *http.Request, login string, n int64, p *AnchorPoint) {
	err := c.cfg.Store.PutAnchor(r.Context(), &Anchor{AnchorPoint: *p, Login: login, Command: n, At: c.cfg.Now().UTC()})
	switch {
	case errors.Is(err, ErrAnchorConflict):
		_ = c.audit(r.Context(), login, "anchor-conflict", strconv.FormatInt(n, 10), fmt.Sprintf(
			"line %d of audit chain %s came with head %s, but another head is anchored there: the trail was rewritten; the first is kept",
			p.Seq, p.Chain, p.Head))
	case err != nil:
		c.cfg.Logger.Error().Err(err).Msg("Anchoring an audit trail failed")
		_ = c.audit(r.Context(), login, "anchor-failed", strconv.FormatInt(n, 10), err.Error())
	}
}

// GET /api/audit-anchors?chain=: the caller's anchors (of one chain), for
// core session serve --verify-audit.
func (c *Console) getAnchors(w http.ResponseWriter, r *http.Request) {
	id, ok := c.caller(w, r, TokenUser)
	if !ok {
		return
	}
	chain := r.URL.Query().Get("chain")
	if chain != "" && !sha256Hex.MatchString(chain) {
		c.refuse(w, r, http.StatusBadRequest, id.Login, fmt.Sprintf("chain must be a SHA-256 in lower-case hex, got %q", chain))
		return
	}
	anchors, err := c.cfg.Store.Anchors(r.Context(), id.Login, chain, 1000)
	if err != nil {
		fail(w, http.StatusInternalServerError, "could not list the anchors: %v", err)
		return
	}
	if anchors == nil {
		anchors = []*Anchor{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"anchors": anchors})
}

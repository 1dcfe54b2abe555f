package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// apiError is the body of every refusal: what was wrong, and what to do.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, apiError{Error: fmt.Sprintf(format, args...)})
}

// bearer returns the token of an "Authorization: Bearer" (or "token")
// header.
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token") {
		return ""
	}
	return strings.TrimSpace(token)
}

// caller verifies the request's bearer token and returns its identity
// when its kind is one of kinds. Otherwise it answers 401 or 403 with the
// reason, audits the refusal, and returns ok false.
func (c *Console) caller(w http.ResponseWriter, r *http.Request, kinds ...string) (id Identity, ok bool) {
	token := bearer(r)
	if token == "" {
		c.refuse(w, r, http.StatusUnauthorized, "", "no credentials: send a GitHub token as Authorization: Bearer TOKEN")
		return Identity{}, false
	}
	id, err := c.verify.verify(r.Context(), token)
	if err != nil {
		c.cfg.Logger.Error().Err(err).Msg("Verifying a token with GitHub failed")
		fail(w, http.StatusBadGateway, "could not verify the token with GitHub; try again later")
		return Identity{}, false
	}
	if id.Kind == "" {
		c.refuse(w, r, http.StatusForbidden, id.Login, id.Reason)
		return Identity{}, false
	}
	if !slices.Contains(kinds, id.Kind) {
		c.refuse(w, r, http.StatusForbidden, id.Login, kindRefusal(id, kinds))
		return Identity{}, false
	}
	return id, true
}

func kindRefusal(id Identity, kinds []string) string {
	if slices.Equal(kinds, []string{TokenUser}) {
		return fmt.Sprintf("%s used an installation token: instructions are queued and claimed only with a user's token from `core auth login`", id.Login)
	}
	return fmt.Sprintf("a %s token is not accepted here", id.Kind)
}

// refuse answers a refusal and audits it with the verified actor (or ""),
// the endpoint and the reason.
func (c *Console) refuse(w http.ResponseWriter, r *http.Request, status int, actor, reason string) {
	_ = c.audit(r.Context(), actor, "refuse", r.Method+" "+r.URL.Path, reason)
	c.cfg.Logger.Info().Str(logKeyActor, actor).Str(logKeyReason, reason).Int(logKeyStatus, status).Msg("Refused a request")
	fail(w, status, "%s", reason)
}

// decodeBody reads a JSON body of at most limit bytes into v, refusing
// unknown fields.
func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fmt.Errorf("the body is larger than %d bytes", limit)
		}
		return fmt.Errorf("the body is not the JSON expected: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("the body holds more than one JSON value")
	}
	return nil
}

// GET /api/config: what a CLI needs to sign in (core auth login).
func (c *Console) apiConfig(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"client_id": c.cfg.ClientID, "app_id": c.cfg.AppID, "org": c.cfg.Org,
		"web_url": c.cfg.WebURL, "api_url": c.cfg.APIURL,
	})
}

package console

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"
)

// Cookies.
const (
	sessionCookie = "core_console"
	stateCookie   = "core_oauth_state"
)

// secure reports whether the browser reached us over TLS, directly or
// through a proxy that says so: cookies are Secure then.
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: int(maxAge / time.Second),
		HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode,
	})
}

func clearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode})
}

// session returns the browser's signed-in session, or nil.
func (c *Console) session(r *http.Request) *WebSession {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil
	}
	ws, err := c.cfg.Store.GetSession(r.Context(), tokenHash(ck.Value), c.cfg.Now())
	if err != nil {
		return nil
	}
	return ws
}

// startSession signs who in: a new session id in the cookie, its hash
// and a CSRF token in the store.
func (c *Console) startSession(w http.ResponseWriter, r *http.Request, who Identity) error {
	id := rand.Text() + rand.Text()
	ws := &WebSession{IDHash: tokenHash(id), Login: who.Login, Owner: who.Owner, CSRF: rand.Text(), Expires: c.cfg.Now().Add(c.cfg.SessionTTL)}
	if err := c.cfg.Store.PutSession(r.Context(), ws); err != nil {
		return err
	}
	setCookie(w, r, sessionCookie, id, c.cfg.SessionTTL)
	return nil
}

// form checks a form post from a signed-in browser: the session, and the
// CSRF token in the form's csrf field (or the X-CSRF-Token header). It
// answers and audits a refusal, returning nil.
func (c *Console) form(w http.ResponseWriter, r *http.Request) *WebSession {
	ws := c.session(r)
	refuse := c.refuserFor(r)
	if ws == nil {
		refuse(w, r, http.StatusUnauthorized, "", "not signed in: sign in at /login")
		return nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxInstruction+4096)
	if err := r.ParseForm(); err != nil {
		refuse(w, r, http.StatusBadRequest, ws.Login, "the form could not be read: "+err.Error())
		return nil
	}
	token := r.PostFormValue("csrf")
	if token == "" {
		token = r.Header.Get("X-CSRF-Token")
	}
	if token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(ws.CSRF)) != 1 {
		refuse(w, r, http.StatusForbidden, ws.Login, "the form's CSRF token is missing or wrong: reload the page and send it again")
		return nil
	}
	return ws
}

// refuserFor is how a refusal of r is answered: a page for a browser,
// JSON for anything else; either way audited.
func (c *Console) refuserFor(r *http.Request) func(w http.ResponseWriter, r *http.Request, status int, actor, reason string) {
	if wantsPage(r) {
		return c.refusePage
	}
	return c.refuse
}

// wantsPage reports whether a browser sent the request, wanting a page
// back rather than JSON.
func wantsPage(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/html") && !strings.Contains(accept, "application/json")
}

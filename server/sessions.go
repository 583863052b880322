package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/verdict-ml/verdict/store"
)

// A browser signs in once with a token; the store keeps a session of that
// token under a random ID, of which the database holds only a hash, and
// the browser holds the ID in an HTTP-only, SameSite=Strict cookie. The
// session being in the database, a restart of the server signs nobody out.
// Every request checks the session's token, so revoking the token ends its
// sessions. Each session has a CSRF token, derived from its ID, that every
// form that changes anything carries.

const (
	sessionCookie = "verdict_session"
	sessionLife   = 12 * time.Hour
	csrfField     = "csrf"
)

// session is a browser's session, as a request presents it.
type session struct {
	id   string
	csrf string
}

func newSession(id string) *session { return &session{id: id, csrf: csrfOf(id)} }

// csrfOf is the CSRF token of session id: a hash of the ID, under a label
// of its own so that it is not the hash the database keeps. Only the
// browser holding the ID can know it, and it needs no storing.
func csrfOf(id string) string {
	sum := sha256.Sum256([]byte("verdict csrf\x00" + id))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// checkCSRF compares the form's CSRF token with the session's, in
// constant time.
func (s *session) checkCSRF(r *http.Request) bool {
	got := r.PostFormValue(csrfField)
	if got == "" {
		got = r.Header.Get("X-CSRF-Token")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

func randomID() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// secureCookies reports whether the cookies of the answer to r are marked
// Secure: when the server is told it is behind HTTPS, or r came over TLS.
func (s *Server) secureCookies(r *http.Request) bool { return s.cfg.CookieSecure || r.TLS != nil }

// startSession stores a session of token t and sets its cookie on w.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, t *store.Token) error {
	expires := time.Now().Add(sessionLife)
	id, err := s.store.CreateSession(r.Context(), t.ID, expires)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, Secure: s.secureCookies(r),
		SameSite: http.SameSiteStrictMode, Expires: expires})
	return nil
}

// sessionOf returns the session of r's cookie and its token, or
// store.ErrUnauthorized when r has no cookie or its session is not valid.
func (s *Server) sessionOf(r *http.Request) (*session, *store.Token, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, nil, store.ErrUnauthorized
	}
	t, _, err := s.store.SessionToken(r.Context(), c.Value)
	if err != nil {
		return nil, nil, err
	}
	return newSession(c.Value), t, nil
}

// endSession ends the session, if any, and clears its cookie.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request, sess *session) error {
	if sess != nil {
		if err := s.store.EndSession(r.Context(), sess.id); err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: s.secureCookies(r),
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	return nil
}

package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"sync"
	"time"
)

// A browser signs in once with a token; the server keeps the token in
// memory under a random session ID, which the browser holds in an
// HTTP-only, SameSite=Strict cookie. Every request re-checks the token, so
// revoking it ends its sessions. Each session has a CSRF token that every
// form that changes anything carries.

const (
	sessionCookie = "verdict_session"
	sessionLife   = 12 * time.Hour
	csrfField     = "csrf"
)

type session struct {
	id      string
	secret  string // the token the browser signed in with
	csrf    string
	expires time.Time
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

type sessions struct {
	mu   sync.Mutex
	byID map[string]*session
}

func newSessions() *sessions { return &sessions{byID: map[string]*session{}} }

func randomID() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// start makes a session for secret and sets its cookie on w.
func (ss *sessions) start(w http.ResponseWriter, secret string, secure bool) *session {
	s := &session{id: randomID(), secret: secret, csrf: randomID(), expires: time.Now().Add(sessionLife)}
	ss.mu.Lock()
	now := time.Now()
	for id, old := range ss.byID {
		if now.After(old.expires) {
			delete(ss.byID, id)
		}
	}
	ss.byID[s.id] = s
	ss.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.id, Path: "/", HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteStrictMode, Expires: s.expires})
	return s
}

// get returns the live session of r's cookie, or nil.
func (ss *sessions) get(r *http.Request) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[c.Value]
	if s == nil || time.Now().After(s.expires) {
		return nil
	}
	return s
}

func (ss *sessions) drop(s *session) {
	ss.mu.Lock()
	delete(ss.byID, s.id)
	ss.mu.Unlock()
}

// end drops the session and clears its cookie.
func (ss *sessions) end(w http.ResponseWriter, s *session, secure bool) {
	if s != nil {
		ss.drop(s)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
}

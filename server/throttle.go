package server

import (
	"container/list"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Failed authentications are limited per client address: a token that is
// wrong, revoked or malformed, in an Authorization header or in the
// sign-in form. Each address may fail a burst of times, then once per
// interval, the allowance refilling as a token bucket does
// (golang.org/x/time/rate); a failure past it is answered 429 with
// Retry-After, not 401. A valid token is checked as always and never waits
// or is refused, whatever its address has failed: the limit is on
// failures alone, and a success neither spends nor restores the allowance.
// A request without any token (a browser's first) is no failure.
//
// The address is the connection's (proxies' headers, which a client can
// write, are not read), an IPv6 address counted by its /64, which one
// client usually holds whole. Memory is bounded: at most maxEntries
// addresses are kept, and the one that failed least recently gives way.

// throttle limits how often each client address may fail to authenticate.
type throttle struct {
	every      time.Duration // one more failure allowed per every
	burst      int
	maxEntries int

	mu    sync.Mutex
	byKey map[string]*list.Element // of *throttled, in recent
	// recent orders the addresses by their last failure, latest first.
	recent *list.List
}

type throttled struct {
	key string
	lim *rate.Limiter
}

func newThrottle(every time.Duration, burst, maxEntries int) *throttle {
	return &throttle{every: every, burst: burst, maxEntries: maxEntries, byKey: map[string]*list.Element{}, recent: list.New()}
}

// fail records a failed authentication from key at now. It returns 0 when
// the failure is within the address's allowance, and otherwise how long
// until the next one would be.
func (th *throttle) fail(key string, now time.Time) time.Duration {
	th.mu.Lock()
	defer th.mu.Unlock()
	e := th.byKey[key]
	if e != nil {
		th.recent.MoveToFront(e)
	} else {
		if th.recent.Len() >= th.maxEntries {
			oldest := th.recent.Back()
			th.recent.Remove(oldest)
			delete(th.byKey, oldest.Value.(*throttled).key)
		}
		e = th.recent.PushFront(&throttled{key: key, lim: rate.NewLimiter(rate.Every(th.every), th.burst)})
		th.byKey[key] = e
	}
	lim := e.Value.(*throttled).lim
	if lim.AllowN(now, 1) {
		return 0
	}
	return time.Duration((1 - lim.TokensAt(now)) * float64(th.every))
}

// len is the number of addresses kept.
func (th *throttle) len() int {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.recent.Len()
}

// clientKey is the address r's failures are counted under: its
// connection's IP, or for IPv6 its /64.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// authFailed is the error of a failed authentication from r: refused,
// with 401, or past its address's allowance, with 429 and Retry-After.
func (s *Server) authFailed(r *http.Request, refused *httpError) error {
	wait := s.throttle.fail(clientKey(r), time.Now())
	if wait <= 0 {
		return refused
	}
	secs := int(math.Ceil(wait.Seconds()))
	return &httpError{status: http.StatusTooManyRequests, code: "rate_limited", retryAfter: secs,
		msg: fmt.Sprintf("too many failed tokens from this address: try again in %d s", secs)}
}

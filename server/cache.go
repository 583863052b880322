package server

import (
	"bytes"
	"container/list"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// answers keeps recent answers of routes whose answer is a function of the
// request and of data that only grows: a leaderboard is computed from an
// experiment's evaluations, which are never changed or removed, with seeded
// resampling, so the same request on the same evaluations gets the same
// bytes. The key holds the experiment's version (its newest evaluation), so
// a new evaluation makes a new key. Concurrent requests for the same key
// compute it once. It holds a bounded number of answers (bytes of at most
// maxAnswerBytes each, maxKeptBytes in all, or values such as an
// experiment's summary), the least recently used going first.
type answers struct {
	mu      sync.Mutex
	max     int // answers kept
	bytes   int // of the answers kept as bytes
	byKey   map[string]*list.Element
	lru     *list.List
	flights singleflight.Group
}

type answer struct {
	key   string
	value any
	size  int // bytes, for an answer of bytes
}

// leaderboardRows is how many leaderboard rows, and as many means, the
// server keeps (compare.RowCache): every row of 100 leaderboards of 500
// runs.
const leaderboardRows = 50_000

// maxAnswerBytes bounds an answer kept as bytes, and maxKeptBytes all of
// them: the leaderboards of a growing experiment, polled, are a new answer
// for every run logged, each larger than the last.
const (
	maxAnswerBytes = 4 << 20
	maxKeptBytes   = 32 << 20
)

func newAnswers(max int) *answers {
	return &answers{max: max, byKey: map[string]*list.Element{}, lru: list.New()}
}

// cacheKey is a request's route and parameters, in a canonical order, and
// the version of the data it reads.
func cacheKey(route string, q url.Values, version int64) string {
	return route + "?" + q.Encode() + "#" + string(rune(0)) + itoa(version)
}

func itoa(v int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// get returns the answer of key, computing it with compute when it is not
// kept. An error is not kept, nor bytes over maxAnswerBytes.
func (a *answers) get(key string, compute func() (any, error)) (any, error) {
	a.mu.Lock()
	if el, ok := a.byKey[key]; ok {
		a.lru.MoveToFront(el)
		v := el.Value.(*answer).value
		a.mu.Unlock()
		return v, nil
	}
	a.mu.Unlock()
	v, err, _ := a.flights.Do(key, func() (any, error) {
		v, err := compute()
		if err != nil {
			return nil, err
		}
		size := 0
		if b, ok := v.([]byte); ok {
			if size = len(b); size > maxAnswerBytes {
				return v, nil
			}
		}
		a.mu.Lock()
		if _, ok := a.byKey[key]; !ok {
			a.byKey[key] = a.lru.PushFront(&answer{key: key, value: v, size: size})
			a.bytes += size
			for a.lru.Len() > a.max || a.bytes > maxKeptBytes && a.lru.Len() > 1 {
				old := a.lru.Remove(a.lru.Back()).(*answer)
				delete(a.byKey, old.key)
				a.bytes -= old.size
			}
		}
		a.mu.Unlock()
		return v, nil
	})
	return v, err
}

// bytesOf computes bytes into a buffer, for get.
func bytesOf(compute func(*bytes.Buffer) error) func() (any, error) {
	return func() (any, error) {
		var buf bytes.Buffer
		if err := compute(&buf); err != nil {
			return nil, err
		}
		// Kept at its length: a buffer grows to twice what it holds.
		return bytes.Clone(buf.Bytes()), nil
	}
}

// replays keeps the answers of requests that change something and carried
// an Idempotency-Key (a recorded compare or rank), so that a client that
// lost an answer and sends the request again gets the first answer rather
// than a second record. A key is the caller's token, the route and the
// Idempotency-Key header, and it holds one request (its parameters): the
// same key with other parameters is refused (ErrConflict), not computed
// and recorded anew. Answers are kept for replayFor, in memory (a restart
// forgets them), at most maxReplays of them.
type replays struct {
	mu      sync.Mutex
	byKey   map[string]replay
	flights singleflight.Group
}

type replay struct {
	request string
	body    []byte
	expires time.Time
}

const (
	replayFor  = 24 * time.Hour
	maxReplays = 10000
)

func newReplays() *replays { return &replays{byKey: map[string]replay{}} }

// do returns the kept answer of key, when it was for request, or computes,
// keeps and returns it. A key kept for another request is a conflict.
func (p *replays) do(key, request string, compute func(*bytes.Buffer) error) ([]byte, error) {
	now := time.Now()
	kept := func() (replay, bool) {
		p.mu.Lock()
		defer p.mu.Unlock()
		r, ok := p.byKey[key]
		return r, ok && now.Before(r.expires)
	}
	if r, ok := kept(); ok {
		return r.answer(request)
	}
	v, err, _ := p.flights.Do(key, func() (any, error) {
		if r, ok := kept(); ok {
			return r, nil
		}
		var buf bytes.Buffer
		if err := compute(&buf); err != nil {
			return nil, err
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.byKey) >= maxReplays {
			for k, r := range p.byKey {
				if now.After(r.expires) || len(p.byKey) >= maxReplays {
					delete(p.byKey, k)
				}
			}
		}
		r := replay{request: request, body: buf.Bytes(), expires: now.Add(replayFor)}
		p.byKey[key] = r
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(replay).answer(request)
}

// answer is the kept answer, when it was for request.
func (r replay) answer(request string) ([]byte, error) {
	if r.request != request {
		return nil, &httpError{status: http.StatusConflict, code: "conflict",
			msg: "the Idempotency-Key was sent before with other parameters; nothing is recorded: use a new key for a new request"}
	}
	return r.body, nil
}

// boardLocks lets one leaderboard of an experiment be computed at a time.
// The next, asked for once a run was logged, then finds the first's rows
// in the row cache and resamples only its new runs' rows, rather than
// every row beside it; and memory holds one computation's samples, not one
// per client polling the experiment.
type boardLocks struct {
	mu    sync.Mutex
	locks map[string]*boardLock
}

type boardLock struct {
	sync.Mutex
	users int // holders and waiters
}

// lock locks experiment's leaderboards and returns the unlock.
func (b *boardLocks) lock(experiment string) (unlock func()) {
	b.mu.Lock()
	if b.locks == nil {
		b.locks = map[string]*boardLock{}
	}
	l := b.locks[experiment]
	if l == nil {
		l = &boardLock{}
		b.locks[experiment] = l
	}
	l.users++
	b.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		b.mu.Lock()
		if l.users--; l.users == 0 {
			delete(b.locks, experiment)
		}
		b.mu.Unlock()
	}
}

package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"slices"
)

// requestDigest hashes what shapes the evaluation a log request stores: its
// query parameters, its format and content coding, and its body, streamed
// through it as the body is read or spooled, so memory stays bounded
// whatever the body's size. An Idempotency-Key is stored with the digest:
// the same key with another digest is other content, refused with 409
// rather than answered with the first evaluation.
type requestDigest struct {
	h    hash.Hash
	body io.Reader // the body, through the hash
	sum  string
}

// newRequestDigest starts the digest of r, whose body, in format, is read
// from body; read the digest in its place.
func newRequestDigest(r *http.Request, body io.Reader, format string) *requestDigest {
	d := &requestDigest{h: sha256.New()}
	fmt.Fprintf(d.h, "verdict log v1\nquery %s\nformat %s\ncontent-encoding %s\nbody\n",
		r.URL.Query().Encode(), format, r.Header.Get("Content-Encoding"))
	d.body = io.TeeReader(body, d.h)
	return d
}

func (d *requestDigest) Read(p []byte) (int, error) { return d.body.Read(p) }

// digest reads what is left of the body and returns the digest, in 64
// lower-case hexadecimal digits. A body that fails to read leaves the
// digest of what was read; the failure is the reader's to report.
func (d *requestDigest) digest() string {
	if d.sum == "" {
		_, _ = io.Copy(io.Discard, d.body)
		d.sum = hex.EncodeToString(d.h.Sum(nil))
	}
	return d.sum
}

// partsDigest is the digest of an evaluate request: its query parameters
// and the content of each named part, whatever order the parts came in and
// whatever boundary separates them, so that a client that rebuilds the
// multipart body for a retry sends the same digest.
type partsDigest struct {
	query string
	parts map[string][]byte // part name: SHA-256 of its content
}

func (p *partsDigest) add(name string) (io.Writer, func()) {
	h := sha256.New()
	return h, func() { p.parts[name] = h.Sum(nil) }
}

func (p *partsDigest) digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "verdict evaluate v1\nquery %s\n", p.query)
	names := make([]string, 0, len(p.parts))
	for n := range p.parts {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(h, "part %s %x\n", n, p.parts[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

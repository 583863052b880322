package server

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/verdict-ml/verdict/scores"
)

// spool writes body to a new temporary file named like name, so that every
// reader, Parquet and NPZ included, reads it as verdict log reads a file:
// memory stays bounded whatever the body's size.
func (s *Server) spool(body io.Reader, ext string) (string, func(), error) {
	f, done, err := s.uploads.create(ext)
	if err != nil {
		return "", nil, err
	}
	// No fsync: the file lives for this request only.
	if _, err := io.Copy(f, body); err != nil {
		done()
		return "", nil, err
	}
	return f.Name(), done, nil
}

// asBody names the uploaded file as the request's body in err's message.
func asBody(err error, path, name string) error {
	if err == nil || !strings.Contains(err.Error(), path) {
		return err
	}
	he := *classify(err)
	he.msg = strings.ReplaceAll(he.msg, path, name)
	return &he
}

// openBody opens a log's body for reading, in bounded memory whatever its
// size. A text format is read as it arrives, as verdict log reads a file,
// and copied to a temporary file on the way, from which the lines of a
// duplicate that the database finds are named. Parquet and NPZ, which are
// read from their end, are written to a temporary file first. Messages name
// the input "body"; those that name tmp, the temporary file, must be
// rewritten so (asBody).
func (s *Server) openBody(body io.Reader, format string) (in *scores.Scores, tmp string, done func(), err error) {
	if known, text := scores.KnownFormat(format); known && text {
		f, remove, err := s.uploads.create("." + format)
		if err != nil {
			return nil, "", nil, err
		}
		reopen := func() (*scores.Scores, error) { return scores.OpenScores(f.Name(), format) }
		in, err := scores.ReadScores(io.TeeReader(body, f), "body", format, reopen)
		if err != nil {
			remove()
			return nil, "", nil, err
		}
		return in, f.Name(), func() { in.Close(); remove() }, nil
	}
	path, remove, err := s.spool(body, "."+format)
	if err != nil {
		return nil, "", nil, err
	}
	if in, err = scores.OpenScores(path, format); err != nil {
		remove()
		return nil, "", nil, asBody(err, path, "body")
	}
	return in, path, func() { in.Close(); remove() }, nil
}

// bodyReader remembers why reading a request's body failed: a body over
// the limit or one that stalled is the client's doing, whatever the reader
// or the store made of the failure (a cut line, a canceled context).
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

// cause returns the body's failure when it had one, else err.
func (b *bodyReader) cause(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(b.err, &tooBig) || errors.Is(b.err, errReadIdle) {
		return b.err
	}
	return err
}

// spooledParts are the files of a multipart request, by part name, spooled
// to temporary files, with the digest of their content.
type spooledParts struct {
	files   map[string]string // part name: temporary file
	headers map[string]string // part name: its Content-Type
	names   map[string]string // part name: the file name the client gave
	digest  *partsDigest
	remove  []func()
}

// close removes the temporary files.
func (p *spooledParts) close() {
	for _, rm := range p.remove {
		rm()
	}
}

// spoolParts writes each part of r's multipart body to a temporary file
// named with the extension ext gives (by part name; a part it does not name
// is refused, as is a part given twice), through the request's digest.
// want describes the parts for messages. Close what it returns.
func (s *Server) spoolParts(r *http.Request, ext func(part, filename, contentType string) (string, bool), want string) (*spooledParts, error) {
	p := &spooledParts{files: map[string]string{}, headers: map[string]string{}, names: map[string]string{},
		digest: &partsDigest{query: r.URL.Query().Encode(), parts: map[string][]byte{}}}
	mr, err := r.MultipartReader()
	if err != nil {
		return p, badRequest("the body must be multipart/form-data with %s: %v", want, err)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return p, nil
		}
		if err != nil {
			return p, badRequest("the multipart body: %v", err)
		}
		name := part.FormName()
		e, ok := ext(name, part.FileName(), part.Header.Get("Content-Type"))
		if !ok {
			return p, badRequest("unknown part %q: the parts are %s", name, want)
		}
		if _, dup := p.files[name]; dup {
			return p, badRequest("part %q is given twice", name)
		}
		h, sum := p.digest.add(name)
		path, done, err := s.spool(io.TeeReader(part, h), e)
		if err != nil {
			return p, err
		}
		p.remove = append(p.remove, done)
		sum()
		p.files[name], p.headers[name], p.names[name] = path, part.Header.Get("Content-Type"), part.FileName()
	}
}

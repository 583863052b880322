package input

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// IDs turns the sample and item IDs a reader decodes into strings, by one
// rule for every format: an ID is its text without the white space around
// it (TrimID). A run of equal IDs, as in a file sorted by sample, shares one
// string, and a new one is a copy that holds no reference to the reader's
// buffers.
//
// The zero value is ready to use; keep one per column.
type IDs struct {
	last string
}

// From returns the ID of s.
func (d *IDs) From(s string) string {
	s = TrimID(s)
	if s != d.last {
		d.last = strings.Clone(s)
	}
	return d.last
}

// FromBytes returns the ID of b.
func (d *IDs) FromBytes(b []byte) string {
	if len(b) > 0 && (mayBeSpace(b[0]) || mayBeSpace(b[len(b)-1])) {
		b = bytes.TrimSpace(b)
	}
	if string(b) != d.last {
		d.last = string(b)
	}
	return d.last
}

// TrimID returns id without the white space around it: spaces, tabs, line
// ends and the other Unicode white space, such as a no-break space, as
// strings.TrimSpace removes them. Space inside an ID is kept.
//
// Evaluations are paired and fingerprinted by the exact bytes of their
// sample IDs, so every reader of scores and of rankings applies this one
// rule: " u1" in a CSV file, "u1 " in a Parquet file and u1 in a TREC run,
// whose blank-separated columns cannot hold white space at all, are the
// same sample. An ID of white space alone becomes empty.
func TrimID(id string) string {
	if id == "" || !mayBeSpace(id[0]) && !mayBeSpace(id[len(id)-1]) {
		return id // the common case, without a call
	}
	return strings.TrimSpace(id)
}

// mayBeSpace reports whether the byte c may be the first or last byte of
// white space: ASCII white space, or any byte of a multi-byte character.
func mayBeSpace(c byte) bool {
	return c >= 0x80 || c == ' ' || c-'\t' <= '\r'-'\t'
}

// Interner hands out one string per distinct name, so that the records of a
// long file share their metric names instead of each holding a copy. It
// keeps at most 10,000 names.
type Interner map[string]string

// InternBytes returns the string of name.
func (in Interner) InternBytes(name []byte) string {
	if s, ok := in[string(name)]; ok {
		return s
	}
	return in.add(string(name))
}

// Intern returns the string of name.
func (in Interner) Intern(name string) string {
	if s, ok := in[name]; ok {
		return s
	}
	return in.add(strings.Clone(name))
}

func (in Interner) add(s string) string {
	if len(in) < 10_000 {
		in[s] = s
	}
	return s
}

// MaxIDBytes is the longest sample ID the readers accept: the store's bound,
// which keeps a sample ID well inside what a B-tree entry holds.
const MaxIDBytes = 1024

// IDProblem says what is wrong with id as a sample ID, which what names
// ("sample ID", "query ID"): longer than MaxIDBytes, or not text the store
// can keep (TextProblem). It returns "" for a good ID. The store checks
// the length too, but the readers know the file and line.
func IDProblem(what, id string) string {
	if len(id) > MaxIDBytes {
		return fmt.Sprintf("the %s is %d bytes long; at most %d are allowed", what, len(id), MaxIDBytes)
	}
	return TextProblem(what, id)
}

// TextProblem says what is wrong with s as text the store keeps, a sample
// ID or a metric name, which what names ("sample ID"): bytes that are not
// UTF-8, which PostgreSQL would refuse with a message that names no file
// or line, or a NUL byte, which its text cannot hold. It returns "" for
// good text.
func TextProblem(what, s string) string {
	switch {
	case !utf8.ValidString(s):
		return NotUTF8(what)
	case strings.IndexByte(s, 0) >= 0:
		return "the " + what + " contains a NUL byte"
	}
	return ""
}

// NotUTF8 is the problem of text, which what names, that is not UTF-8.
func NotUTF8(what string) string {
	return "the " + what + " is not valid UTF-8; convert the file to UTF-8 (was it written as Latin-1 or Windows-1252?)"
}

package input

import (
	"archive/zip"
	"cmp"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Location names a place in an input file for a message. The zero value of
// every field but Path leaves that part out.
type Location struct {
	// Path is the file as its reader was given it.
	Path string
	// Unit is what Pos counts: "line" (the default), "row" for a 1-based
	// data row of a binary file, or "record".
	Unit string
	// Pos is the 1-based line, row or record; 0 for the file as a whole.
	Pos int64
	// Row is the 0-based row a ranking reader returns the place as, when
	// HasRow is set.
	Row    int64
	HasRow bool
	// Sample is the sample ID, when HasSample is set. SampleNoun is what
	// the format calls a sample: "sample" (the default) or "query".
	Sample     string
	HasSample  bool
	SampleNoun string
	// Column names a column. ColumnNoun is what the format calls one:
	// "column" (the default), "key" or "array".
	Column     string
	ColumnNoun string
}

// String formats the location, as in
//
//	scores.csv: line 12 (sample "u0000011"), column "ndcg@10"
//	scores.parquet: row 3, column "draw"
//	run.txt: line 7 (row 2, query "301")
//	items.npy: row 12 (sample "10000042")
//	targets.npz: array "indptr"
func (l Location) String() string {
	var b strings.Builder
	b.WriteString(l.Path)
	sep := func() {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
	}
	if l.Pos > 0 {
		sep()
		b.WriteString(cmp.Or(l.Unit, "line"))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(l.Pos, 10))
	}
	noun := cmp.Or(l.SampleNoun, "sample")
	switch {
	case l.Pos > 0 && l.HasRow && l.HasSample:
		fmt.Fprintf(&b, " (row %d, %s %s)", l.Row, noun, quoteShort(l.Sample))
	case l.Pos > 0 && l.HasRow:
		fmt.Fprintf(&b, " (row %d)", l.Row)
	case l.HasRow:
		sep()
		fmt.Fprintf(&b, "row %d", l.Row)
		if l.HasSample {
			fmt.Fprintf(&b, " (%s %s)", noun, quoteShort(l.Sample))
		}
	case l.HasSample:
		fmt.Fprintf(&b, " (%s %s)", noun, quoteShort(l.Sample))
	}
	if l.Column != "" {
		if l.Pos > 0 || l.HasRow || l.HasSample {
			b.WriteString(", ")
		} else {
			sep()
		}
		fmt.Fprintf(&b, "%s %s", cmp.Or(l.ColumnNoun, "column"), quoteShort(l.Column))
	}
	return b.String()
}

// quoteShort quotes a sample ID or column name for a message, cut to its
// first 64 bytes when it is longer than the readers accept, so that a
// message about a line of megabytes is not megabytes long.
func quoteShort(s string) string {
	if len(s) <= max(MaxIDBytes, MaxNameBytes) {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:64], len(s))
}

// WithSample returns l with the sample ID id.
func (l Location) WithSample(id string) Location {
	l.Sample, l.HasSample = id, true
	return l
}

// WithColumn returns l with the column name.
func (l Location) WithColumn(name string) Location {
	l.Column = name
	return l
}

// Errorf returns an *Error at l whose problem is the formatted text, wrapping
// kind, the sentinel of the package that reports it.
func (l Location) Errorf(kind error, format string, args ...any) error {
	return &Error{Location: l, Problem: fmt.Sprintf(format, args...), kind: kind}
}

// Wrap is Errorf for a problem that an error of another package caused; the
// *Error wraps cause as well as kind.
func (l Location) Wrap(kind, cause error, format string, args ...any) error {
	return &Error{Location: l, Problem: fmt.Sprintf(format, args...), kind: kind, cause: cause}
}

// Error is a problem with the content of an input file: a user's data error
// rather than a failure of the system. Its message is the location, then the
// problem:
//
//	scores.csv: line 12 (sample "u0000011"), column "ndcg@10": "abc" is not a number
type Error struct {
	Location
	Problem string
	kind    error
	cause   error
}

func (e *Error) Error() string {
	if where := e.Location.String(); where != "" {
		return where + ": " + e.Problem
	}
	return e.Problem
}

// Unwrap returns the sentinel the error was made with and, when there is
// one, the error that caused it.
func (e *Error) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// ReadError reports a failure to read, decompress or unzip the file at l.
// A truncated file or a corrupt compressed stream (gzip, deflate, a zip
// member's checksum) is the user's to fix, so the error wraps kind, and so
// does a line longer than MaxLineBytes (Lines.Next), reported at the line
// where it starts; any other failure is passed on with its location.
func ReadError(kind error, l Location, err error) error {
	var (
		corrupt flate.CorruptInputError
		limit   *limitError
	)
	switch {
	case errors.As(err, &limit):
		l.Pos = limit.line
		return l.Errorf(kind, "%s", limit.problem(nil, Columns{}))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return l.Wrap(kind, err, "the file is truncated")
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &corrupt):
		return l.Wrap(kind, err, "corrupt compressed data: %v", err)
	case errors.Is(err, zip.ErrChecksum), errors.Is(err, zip.ErrFormat), errors.Is(err, zip.ErrAlgorithm):
		return l.Wrap(kind, err, "%v", err)
	}
	return fmt.Errorf("%s: %w", l, err)
}

// QuoteList quotes up to six names for a message, as `"a", "b" and 3 more`,
// or says "none".
func QuoteList(names []string) string {
	const most = 6
	if len(names) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, name := range names {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(names)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(name))
	}
	return b.String()
}

// Fields counts fields for a message: "1 field", "3 fields".
func Fields(n int) string {
	if n == 1 {
		return "1 field"
	}
	return strconv.Itoa(n) + " fields"
}

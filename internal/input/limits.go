package input

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// MaxLineBytes is the longest line that the text readers take in: a line of
// JSON Lines, TREC or a table, and a record of CSV or TSV (which may span
// lines inside quotes). A line over it is refused at its line number as
// soon as the reader has read that much of it, so that a corrupt or
// hostile file, such as a gzip stream that expands to one line of
// gigabytes, costs a few megabytes of memory rather than all of it. 4 MiB
// holds a header of 1,000 metric names of MaxNameBytes each, and rows far
// wider than any evaluation logs.
const MaxLineBytes = 4 << 20

// MaxNameBytes is the longest metric name the readers accept, the same as
// the store's bound on a sample ID (1,024 bytes), so that a name always
// fits in a line and in a message.
const MaxNameBytes = 1024

// MaxColumns is the most columns that a labels file or a long table may
// have, sample_id and the others it needs among them; a scores file has
// its own bound, from the store's number of metrics.
const MaxColumns = 1024

// limitError is a line or record of a text file that goes past one of the
// limits. ReadError and CSV.Read report it at its line.
type limitError struct {
	line int64 // where the line or record starts
	// For CSV: too many fields (fields > 0) or too long, and whether the
	// record spans lines.
	fields    int
	multiline bool
}

func (e *limitError) Error() string { return e.problem(nil, Columns{}) }

// problem describes the error; header is the CSV header read so far (nil
// while the header itself is read), cols its limit.
func (e *limitError) problem(header []string, cols Columns) string {
	switch {
	case e.fields > 0 && header == nil:
		p := fmt.Sprintf("the header has more than %d columns", e.fields)
		if cols.Why != "" {
			p += "; " + cols.Why
		}
		return p
	case e.fields > 0:
		return fmt.Sprintf("more than %s, but the header has %d", Fields(e.fields), len(header))
	case e.multiline:
		return "the record from this line on is longer than " + sizeText(MaxLineBytes) +
			", the most a record may hold; is a quote left open?"
	}
	return "the line is longer than " + sizeText(MaxLineBytes) + ", the most a line may hold"
}

// sizeText formats a number of bytes that is a whole number of MiB or KiB.
func sizeText(n int) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// Columns bounds the columns of a CSV or TSV file, counted while the header
// (and every record after it) is read, before its fields are held in memory.
type Columns struct {
	// Max is the most columns a header, and the most fields a record, may
	// have.
	Max int
	// Why says in a message what the limit is for, as "a scores file has
	// sample_id, draw and at most 1000 metrics".
	Why string
}

// csvGuard passes the text of a CSV or TSV file to encoding/csv, which
// buffers a whole record before it splits it, and stops at a record longer
// than MaxLineBytes or with more than max fields before encoding/csv has
// buffered it: it follows the quoting as it goes, so that separators and
// line ends inside quotes count as encoding/csv counts them. In a file that
// encoding/csv refuses for a stray quote, it may follow the quoting wrongly
// after that quote, but encoding/csv reports the quote first.
type csvGuard struct {
	r      io.Reader
	comma  byte
	max    int
	line   int64 // line of the next byte
	start  int64 // line where the current record starts
	size   int   // bytes of the current record so far
	fields int   // fields of the current record so far
	quoted bool
	err    error
}

func newCSVGuard(r io.Reader, comma byte, max int) *csvGuard {
	return &csvGuard{r: r, comma: comma, max: max, line: 1, start: 1, fields: 1}
}

func (g *csvGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if ok := g.scan(p[:n]); ok < n {
		g.err = &limitError{line: g.start, multiline: g.line > g.start}
		if g.fields > g.max {
			g.err = &limitError{line: g.start, fields: g.max}
		}
		return ok, g.err
	}
	return n, err
}

// scan follows p and returns len(p), or how many of its bytes come before
// the record that goes past a limit.
func (g *csvGuard) scan(p []byte) int {
	i := 0
	for i < len(p) {
		if g.quoted {
			// Inside quotes: up to the next quote; "" is a quote closed
			// and opened again.
			seg := p[i:]
			q := bytes.IndexByte(seg, '"')
			if q >= 0 {
				seg = seg[:q]
			}
			g.line += int64(bytes.Count(seg, []byte{'\n'}))
			g.size += len(seg)
			if g.size > MaxLineBytes {
				return i
			}
			i += len(seg)
			if q >= 0 {
				g.quoted = false
				g.size++
				i++
			}
			continue
		}
		seg := p[i:]
		nl := bytes.IndexByte(seg, '\n')
		if nl >= 0 {
			seg = seg[:nl]
		}
		q := bytes.IndexByte(seg, '"')
		if q >= 0 {
			seg = seg[:q]
		}
		g.fields += bytes.Count(seg, []byte{g.comma})
		g.size += len(seg)
		if g.size > MaxLineBytes || g.fields > g.max {
			return i
		}
		i += len(seg)
		switch {
		case q >= 0:
			g.quoted = true
			g.size++
			i++
		case nl >= 0:
			g.line++
			g.start, g.size, g.fields = g.line, 0, 1
			i++
		}
	}
	return len(p)
}

package input

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
)

// CSV reads a CSV or TSV file whose first line names its columns. It uses
// encoding/csv, which handles quoting, CRLF line ends and blank lines, with
// a reused record, so that reading costs no allocation per line.
//
// Its memory is bounded whatever the file holds: a record longer than
// MaxLineBytes, a header with more columns than its Columns limit and a
// record with more fields than that are refused at their line while they
// are read, before encoding/csv holds them.
type CSV struct {
	// Header is the column names of the first line, each without the
	// spaces around it, the first without a byte order mark.
	Header []string
	// Line is the line of the last record read; the header's after
	// NewCSV.
	Line int64
	r    *csv.Reader
	path string
	cols Columns
	kind error
}

// NewCSV reads the header line of the CSV (comma ',') or TSV (comma '\t')
// text r of the file at path. It returns io.EOF for a file without a line,
// for the caller to say what the file should hold; kind is the sentinel
// that its errors about the file's content wrap. cols bounds the header's
// columns and every record's fields.
func NewCSV(path string, r io.Reader, comma rune, cols Columns, kind error) (*CSV, error) {
	if comma != ',' && comma != '\t' {
		panic("input: a CSV separator other than ',' or '\\t'")
	}
	if cols.Max <= 0 {
		panic("input: no column limit for a CSV file")
	}
	// encoding/csv keeps a *bufio.Reader of this size as it is.
	cr := csv.NewReader(bufio.NewReaderSize(newCSVGuard(r, byte(comma), cols.Max), 1<<16))
	cr.Comma = comma
	// "a, b" is common in hand-written CSV; in TSV the option would let an
	// empty field swallow the next tab.
	cr.TrimLeadingSpace = comma == ','
	cr.FieldsPerRecord = -1 // the callers compare, to name both counts
	cr.ReuseRecord = true
	c := &CSV{r: cr, path: path, cols: cols, kind: kind}
	header, err := c.Read()
	if err != nil {
		return nil, err
	}
	c.Header = slices.Clone(header)
	c.Header[0] = strings.TrimPrefix(c.Header[0], "\ufeff") // as Excel writes
	for i, name := range c.Header {
		c.Header[i] = strings.TrimSpace(name)
	}
	return c, nil
}

// Read returns the fields of the next record, valid until the next call, or
// io.EOF at the end. A quoting error, and a record over the limits, is an
// *Error at its line; a failure to read or decompress is reported by
// ReadError at the line after the last one read.
func (c *CSV) Read() ([]string, error) {
	fields, err := c.r.Read()
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, Location{Path: c.path, Pos: int64(pe.Line)}.Errorf(c.kind, "%v at character %d", pe.Err, pe.Column)
		}
		var le *limitError
		if errors.As(err, &le) {
			return nil, Location{Path: c.path, Pos: le.line}.Errorf(c.kind, "%s", le.problem(c.Header, c.cols))
		}
		// encoding/csv passes read errors on without a position.
		return nil, ReadError(c.kind, Location{Path: c.path, Pos: c.Line + 1}, err)
	}
	line, _ := c.r.FieldPos(0)
	c.Line = int64(line)
	return fields, nil
}

// Ragged describes a record whose number of fields differs from the
// header's, as "2 fields, but the header has 3", or returns "".
func (c *CSV) Ragged(fields []string) string {
	if len(fields) == len(c.Header) {
		return ""
	}
	return Fields(len(fields)) + ", but the header has " + strconv.Itoa(len(c.Header))
}

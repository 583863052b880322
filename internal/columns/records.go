// readLine and readRecord are derived from Go's encoding/csv/reader.go,
// Copyright 2011 The Go Authors, under the BSD-style licence of the Go
// distribution (https://go.dev/LICENSE).

package columns

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"unicode"
	"unicode/utf8"
)

// records reads CSV records as encoding/csv's Reader does with
// TrimLeadingSpace set and FieldsPerRecord 0 (the first record sets the
// count), with the same errors (*csv.ParseError) at the same lines and
// columns, but hands each record over as byte slices that are valid until
// the next call: no string is made per field. Its readLine and readRecord
// are encoding/csv's (Go 1.26), less the options verdict does not set
// (Comment, LazyQuotes).
type records struct {
	r     *bufio.Reader
	comma rune

	numLine int // the line last read, from 1
	recLine int // the line the record starts on
	fields  int // fields per record, set by the first

	rawBuffer    []byte   // a line longer than r's buffer
	recordBuffer []byte   // the record's fields, unescaped, one after another
	fieldIndexes []int    // where each field ends in recordBuffer
	record       [][]byte // the fields, slices of recordBuffer
}

func newRecords(r *bufio.Reader, comma rune) *records {
	return &records{r: r, comma: comma}
}

// readLine reads the next line with its trailing \n, \r\n made \n; at
// the end of input without one, a trailing \r is dropped. Some bytes read
// means a nil error.
func (r *records) readLine() ([]byte, error) {
	line, err := r.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.rawBuffer = append(r.rawBuffer[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.r.ReadSlice('\n')
			r.rawBuffer = append(r.rawBuffer, line...)
		}
		line = r.rawBuffer
	}
	readSize := len(line)
	if readSize > 0 && err == io.EOF {
		err = nil
		if line[readSize-1] == '\r' {
			line = line[:readSize-1]
		}
	}
	r.numLine++
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		line = line[:n-1]
	}
	return line, err
}

// lengthNL is the number of bytes of b's trailing \n: 0 or 1.
func lengthNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}

// nextRune is the rune b starts with, or utf8.RuneError.
func nextRune(b []byte) rune {
	r, _ := utf8.DecodeRune(b)
	return r
}

// notSpace is not unicode.IsSpace, the test TrimLeadingSpace trims by.
func notSpace(r rune) bool { return !unicode.IsSpace(r) }

// next reads the next record, skipping empty lines: io.EOF at the end of
// input. A record whose number of fields differs from the first's is
// returned with a *csv.ParseError of csv.ErrFieldCount, as encoding/csv
// does.
func (r *records) next() ([][]byte, error) {
	var line []byte
	var errRead error
	for errRead == nil {
		line, errRead = r.readLine()
		if errRead == nil && len(line) == lengthNL(line) {
			line = nil
			continue // an empty line
		}
		break
	}
	if errRead == io.EOF {
		return nil, errRead
	}
	r.recLine = r.numLine

	commaLen := utf8.RuneLen(r.comma)
	if bytes.IndexByte(line, '"') < 0 {
		// No quote: the record is this line, and its fields are slices of
		// it, split at the commas.
		r.record = r.record[:0]
		for {
			if len(line) == 0 || !printable(line[0]) {
				if i := bytes.IndexFunc(line, notSpace); i >= 0 {
					line = line[i:]
				} else {
					line = line[len(line):]
				}
			}
			i := bytes.IndexRune(line, r.comma)
			if i < 0 {
				r.record = append(r.record, line[:len(line)-lengthNL(line)])
				break
			}
			r.record = append(r.record, line[:i])
			line = line[i+commaLen:]
		}
		return r.record, r.checkFields(errRead)
	}

	var err error
	const quoteLen = len(`"`)
	recLine := r.recLine
	r.recordBuffer = r.recordBuffer[:0]
	r.fieldIndexes = r.fieldIndexes[:0]
	col := 1 // byte column of line's start, from 1
parseField:
	for {
		// TrimLeadingSpace; most fields start with a printable ASCII byte.
		if len(line) == 0 || line[0] <= ' ' || line[0] >= utf8.RuneSelf {
			i := bytes.IndexFunc(line, notSpace)
			if i < 0 {
				i = len(line)
				col -= lengthNL(line)
			}
			line = line[i:]
			col += i
		}
		if len(line) == 0 || line[0] != '"' {
			// An unquoted field.
			i := bytes.IndexRune(line, r.comma)
			field := line
			if i >= 0 {
				field = field[:i]
			} else {
				field = field[:len(field)-lengthNL(field)]
			}
			if j := bytes.IndexByte(field, '"'); j >= 0 {
				err = &csv.ParseError{StartLine: recLine, Line: r.numLine, Column: col + j, Err: csv.ErrBareQuote}
				break parseField
			}
			r.recordBuffer = append(r.recordBuffer, field...)
			r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
			if i >= 0 {
				line = line[i+commaLen:]
				col += i + commaLen
				continue parseField
			}
			break parseField
		}
		// A quoted field.
		posLine := r.numLine
		line = line[quoteLen:]
		col += quoteLen
		for {
			i := bytes.IndexByte(line, '"')
			if i >= 0 {
				// The next quote.
				r.recordBuffer = append(r.recordBuffer, line[:i]...)
				line = line[i+quoteLen:]
				col += i + quoteLen
				switch rn := nextRune(line); {
				case rn == '"':
					// "" is a quote.
					r.recordBuffer = append(r.recordBuffer, '"')
					line = line[quoteLen:]
					col += quoteLen
				case rn == r.comma:
					// ", ends the field.
					line = line[commaLen:]
					col += commaLen
					r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
					continue parseField
				case lengthNL(line) == len(line):
					// "\n ends the record.
					r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
					break parseField
				default:
					// A quote inside the quoted field, not doubled.
					err = &csv.ParseError{StartLine: recLine, Line: r.numLine, Column: col - quoteLen, Err: csv.ErrQuote}
					break parseField
				}
			} else if len(line) > 0 {
				// The end of a line inside the field: it goes on on the next.
				r.recordBuffer = append(r.recordBuffer, line...)
				if errRead != nil {
					break parseField
				}
				col += len(line)
				line, errRead = r.readLine()
				if len(line) > 0 {
					posLine++
					col = 1
				}
				if errRead == io.EOF {
					errRead = nil
				}
			} else {
				// The end of input inside the field.
				if errRead == nil {
					err = &csv.ParseError{StartLine: recLine, Line: posLine, Column: col, Err: csv.ErrQuote}
					break parseField
				}
				r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
				break parseField
			}
		}
	}
	if err == nil {
		err = errRead
	}

	r.record = r.record[:0]
	prev := 0
	for _, end := range r.fieldIndexes {
		r.record = append(r.record, r.recordBuffer[prev:end])
		prev = end
	}
	if err != nil {
		return r.record, err
	}
	return r.record, r.checkFields(nil)
}

// checkFields checks the record's number of fields against the first's,
// which sets it, unless err, the record's error, says more.
func (r *records) checkFields(err error) error {
	if r.fields == 0 {
		r.fields = len(r.record)
	} else if len(r.record) != r.fields && err == nil {
		return &csv.ParseError{StartLine: r.recLine, Line: r.recLine, Column: 1, Err: csv.ErrFieldCount}
	}
	return err
}

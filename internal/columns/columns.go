// Package columns reads named columns of numbers or text, the input of
// `verdict stats`: a JSON object of arrays ({"left": [...], "right": [...]})
// or a CSV or TSV file whose header names the columns. It checks syntax and
// types; what the columns mean is left to the caller.
//
// CSV is parsed as it is read, with no string made per cell: a column is
// held as float64s, or as text for the ID columns (id, units). A cell that
// is not a number is an error only when its column is asked for as
// numbers, as if the file were parsed then.
package columns

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrBadInput is wrapped by every error about the input: its syntax, a
// missing column, a value that is not a number.
var ErrBadInput = errors.New("bad input")

// inputError is a problem with the input, said for the user. It wraps
// ErrBadInput.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return ErrBadInput }

func userError(format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...)}
}

// Columns is the data given to `verdict stats`: named columns of numbers
// or text, as a JSON object of arrays or a CSV file with a header.
type Columns struct {
	source string
	fields map[string]json.RawMessage // JSON input
	cols   map[string]*column         // CSV input, by header name
	bare   bool                       // one unnamed column of numbers: cols[""]
	order  []string                   // CSV header order
	rows   int
}

// MaxBytes bounds the input Read takes. A CSV file is parsed as it is
// read, each column held as numbers (8 bytes a cell) or, for the ID
// columns, as text; JSON is held whole.
const MaxBytes = 256 << 20

// Open reads the file at path in format, or by its extension when format
// is empty (by content for .txt and no extension); a path of "" or "-" is
// standard input, named stdin.
func Open(path, format string) (*Columns, error) {
	if path == "" || path == "-" {
		return Read(os.Stdin, "stdin", format)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, userError("%v", err)
	}
	defer f.Close()
	if format == "" {
		switch ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."); ext {
		case "json", "csv", "tsv":
			format = ext
		case "txt", "":
			// p.txt, one number a line: told apart by content.
		default:
			return nil, userError("%s: unknown input format %q: want json, csv or tsv (--input-format)", path, ext)
		}
	}
	return Read(f, path, format)
}

// bufSize is the size of Read's buffer, and of the sample it tells the
// format and guesses the number of rows by.
const bufSize = 64 << 10

// Read reads r, named source in messages, in format: "json", "csv",
// "tsv", or "" to tell JSON (an object) from CSV by the first character
// that is not white space. CSV is parsed as it is read. Whatever the
// format, input past MaxBytes, or a failure to read, is the error, before
// any about the content.
func Read(r io.Reader, source, format string) (*Columns, error) {
	in := &Columns{source: source}
	src, size := &input{r: r, left: MaxBytes + 1}, sizeOf(r)
	br := bufio.NewReaderSize(src, bufSize)
	if format == "" {
		format = "json"
		head, _ := br.Peek(bufSize)
		i := bytes.IndexFunc(head, notSpace)
		switch {
		case i >= 0 && (len(head) < bufSize || i+utf8.UTFMax <= len(head)):
			if head[i] != '{' {
				format = "csv"
			}
		case len(head) == bufSize:
			// 64 KiB of white space, or a rune cut at its end: told by
			// the whole input.
			data, _ := io.ReadAll(br)
			if t := bytes.TrimSpace(data); len(t) > 0 && t[0] != '{' {
				format = "csv"
			}
			br = bufio.NewReaderSize(bytes.NewReader(data), bufSize)
		}
	}
	var err error
	switch format {
	case "json":
		data, _ := io.ReadAll(br)
		if err := src.finish(source); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &in.fields); err != nil {
			return nil, userError("%s: not a JSON object of arrays: %v", in.source, err)
		}
		return in, nil
	case "csv":
		err = in.readCSV(br, ',', size)
	case "tsv":
		err = in.readCSV(br, '\t', size)
	default:
		err = userError("%s: unknown input format %q: want json, csv or tsv", in.source, format)
	}
	if err := src.finish(source); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// readCSV reads CSV records from br, with fields separated by comma, into
// the columns its header names. size is the input's size in bytes, or 0
// when unknown: it sizes the columns of numbers.
func (in *Columns) readCSV(br *bufio.Reader, comma rune, size int64) error {
	rd := newRecords(br, comma)
	head, err := rd.next()
	if err == io.EOF {
		return userError("%s: empty: want a header row naming the columns", in.source)
	}
	if err != nil {
		return userError("%s: %v", in.source, err)
	}
	in.cols = map[string]*column{}
	in.order = make([]string, len(head))
	for j, f := range head {
		name := string(f)
		switch {
		case strings.TrimSpace(name) == "":
			return userError("%s: line 1: column %d has no name", in.source, j+1)
		case in.cols[name] != nil:
			return userError("%s: line 1: column %q appears twice", in.source, name)
		}
		in.order[j] = name
		in.cols[name] = &column{text: idColumns[name]}
	}
	cols := make([]*column, len(head))
	for j, name := range in.order {
		cols[j] = in.cols[name]
	}
	rows := guessRows(br, size)
	if _, err := parseNumber(in.order[0]); len(head) == 1 && err == nil {
		// One number a line, without a header: the values of the one
		// column a command needs.
		c := &column{vals: make([]float64, 0, rows+1)}
		c.add(head[0], 0)
		in.bare, in.order, cols[0], in.rows = true, []string{""}, c, 1
		in.cols = map[string]*column{"": c}
	} else {
		for _, c := range cols {
			if !c.text {
				c.vals = make([]float64, 0, rows)
			}
		}
	}
	for {
		rec, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return userError("%s: %v", in.source, err)
		}
		for j, c := range cols {
			c.add(rec[j], in.rows)
		}
		in.rows++
	}
	return nil
}

// guessRows guesses the number of rows left to read, by the lines in br's
// buffer and the input's size (0 when unknown), a little over, for the
// columns to take their size at once.
func guessRows(br *bufio.Reader, size int64) int {
	sample, _ := br.Peek(br.Buffered())
	lines := bytes.Count(sample, []byte{'\n'})
	if size <= int64(len(sample)) || lines == 0 {
		return lines + 1
	}
	size = min(size, MaxBytes)
	return int(float64(size)/float64(len(sample))*float64(lines)*1.05) + 16
}

// sizeOf is the number of bytes r holds: a regular file's size, the
// length of a bytes.Reader or strings.Reader, or 0 when unknown.
func sizeOf(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case interface{ Stat() (os.FileInfo, error) }:
		fi, err := r.Stat()
		if err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 0
}

// input reads at most left bytes of r, then ends; a read error ends it
// too, kept for finish.
type input struct {
	r    io.Reader
	left int64
	err  error
}

func (s *input) Read(p []byte) (int, error) {
	if s.left <= 0 || s.err != nil {
		return 0, io.EOF
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if err != nil && err != io.EOF {
		s.err = err
		err = io.EOF
	}
	return n, err
}

// finish reads the input to its end, and says what the whole of it
// could not be: read, or held (more than MaxBytes).
func (s *input) finish(source string) error {
	io.Copy(io.Discard, s)
	if s.err != nil {
		return userError("%s: %v", source, s.err)
	}
	if s.left <= 0 {
		return userError("%s: more than %d MiB: the statistics take their input in memory; sample it, or log it and use verdict compare", source, MaxBytes>>20)
	}
	return nil
}

// Has reports whether the input has a column (or JSON field) name.
func (in *Columns) Has(name string) bool {
	if in.fields != nil {
		_, ok := in.fields[name]
		return ok
	}
	_, ok := in.cols[name]
	return ok
}

// Floats returns a numeric column, less its empty cells (white space
// only: columns of different lengths end early). A missing column is an
// error when required, nil otherwise. Input of one number a line, without
// a header, is the column of any required name. A CSV column without
// empty cells comes back as it is held, not copied: the caller must not
// change it.
func (in *Columns) Floats(name string, required bool) ([]float64, error) {
	if in.bare && required {
		name = ""
	}
	if !in.Has(name) {
		if required {
			return nil, userError("%s: no %q %s", in.source, name, in.what())
		}
		return nil, nil
	}
	if in.fields != nil {
		var raw []json.RawMessage
		if err := json.Unmarshal(in.fields[name], &raw); err != nil {
			return nil, userError("%s: %q is not an array of numbers", in.source, name)
		}
		out := make([]float64, len(raw))
		for i, r := range raw {
			v, err := parseNumber(strings.Trim(string(r), `"`))
			if err != nil {
				return nil, userError("%s: %s[%d]: %v", in.source, name, i, err)
			}
			out[i] = v
		}
		return out, nil
	}
	c := in.cols[name].numbers()
	if c.bad != nil {
		return nil, in.cellError(name, c.bad)
	}
	if len(c.empty) == 0 {
		return c.vals, nil
	}
	out := make([]float64, 0, len(c.vals)-len(c.empty))
	start := 0
	for _, row := range c.empty {
		out = append(out, c.vals[start:row]...)
		start = row + 1
	}
	return append(out, c.vals[start:]...), nil
}

// cellError says where the cell of column name is: its line, and its
// column unless the input is one unnamed column.
func (in *Columns) cellError(name string, c *cell) error {
	if in.bare {
		return userError("%s: line %d: %v", in.source, c.row+1, c.err())
	}
	return userError("%s: line %d, column %q: %v", in.source, c.row+2, name, c.err())
}

// Number returns a single number: a JSON number, or the first value of a
// CSV column.
func (in *Columns) Number(name string) (float64, bool, error) {
	if !in.Has(name) {
		return 0, false, nil
	}
	if in.fields != nil {
		var v float64
		if err := json.Unmarshal(in.fields[name], &v); err != nil {
			return 0, false, userError("%s: %q is not a number", in.source, name)
		}
		return v, true, nil
	}
	vals, err := in.Floats(name, true)
	if err != nil || len(vals) == 0 {
		return 0, false, err
	}
	return vals[0], true, nil
}

// Strings returns an ID column, id or units, as text. Other CSV columns
// are held as numbers: Strings of any other name panics.
func (in *Columns) Strings(name string) ([]string, error) {
	if !idColumns[name] {
		panic(fmt.Sprintf("columns: Strings(%q): only the ID columns are held as text", name))
	}
	if !in.Has(name) {
		return nil, nil
	}
	if in.fields != nil {
		var raw []json.RawMessage
		if err := json.Unmarshal(in.fields[name], &raw); err != nil {
			return nil, userError("%s: %q is not an array", in.source, name)
		}
		out := make([]string, len(raw))
		for i, r := range raw {
			var s string
			if json.Unmarshal(r, &s) != nil {
				s = string(r) // numbers as their JSON text
			}
			out[i] = s
		}
		return out, nil
	}
	return in.cols[name].strings(), nil
}

// Matrix returns a JSON array of rows of numbers, or every CSV column as one
// column of the matrix with the header as names.
func (in *Columns) Matrix(name string) (rows [][]float64, names []string, err error) {
	if in.fields == nil {
		names = in.order
		rows = make([][]float64, in.rows)
		for j, col := range names {
			c := in.cols[col].numbers()
			if c.unparsed != nil {
				return nil, nil, userError("%s: line %d, column %q: %v", in.source, c.unparsed.row+2, col, c.unparsed.err())
			}
			for i, v := range c.vals {
				if j == 0 {
					rows[i] = make([]float64, len(names))
				}
				rows[i][j] = v
			}
		}
		return rows, names, nil
	}
	if !in.Has(name) {
		return nil, nil, userError("%s: no %q %s", in.source, name, in.what())
	}
	if err := json.Unmarshal(in.fields[name], &rows); err != nil {
		return nil, nil, userError("%s: %q is not an array of rows of numbers: %v", in.source, name, err)
	}
	if in.Has("names") {
		if err := json.Unmarshal(in.fields["names"], &names); err != nil {
			return nil, nil, userError("%s: \"names\" is not an array of strings", in.source)
		}
	}
	return rows, names, nil
}

// Keyed returns a JSON object {id: score}, or a CSV column keyed by the
// "id" column (rows with an empty value are absent).
func (in *Columns) Keyed(name string) (map[string]float64, error) {
	if !in.Has(name) {
		return nil, userError("%s: no %q %s", in.source, name, in.what())
	}
	if in.fields != nil {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(in.fields[name], &raw); err != nil {
			return nil, userError("%s: %q is not an object of id: score", in.source, name)
		}
		out := make(map[string]float64, len(raw))
		for id, r := range raw {
			v, err := parseNumber(strings.Trim(string(r), `"`))
			if err != nil {
				return nil, userError("%s: %s[%q]: %v", in.source, name, id, err)
			}
			out[id] = v
		}
		return out, nil
	}
	idc, ok := in.cols["id"]
	if !ok {
		return nil, userError("%s: no \"id\" column to match %q by", in.source, name)
	}
	ids := idc.strings()
	c := in.cols[name].numbers()
	if c.bad != nil {
		return nil, in.cellError(name, c.bad)
	}
	out := make(map[string]float64, len(ids))
	empty := c.empty
	for i, v := range c.vals {
		if len(empty) > 0 && empty[0] == i {
			empty = empty[1:]
			continue
		}
		out[ids[i]] = v
	}
	return out, nil
}

// Counts reads whole numbers given as single values (Number), all
// required: the counts of a 2×2 table, say.
func (in *Columns) Counts(names ...string) ([]int, error) {
	out := make([]int, len(names))
	for i, name := range names {
		v, ok, err := in.Number(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, userError("%s: needs %s", in.source, strings.Join(names, " and "))
		}
		if v != math.Trunc(v) || v < 0 || v > math.MaxInt32 {
			return nil, userError("%s: %s must be a whole count, got %g", in.source, name, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

// Pair reads the paired columns left and right, both required.
func (in *Columns) Pair() (left, right []float64, err error) {
	if left, err = in.Floats("left", true); err != nil {
		return nil, nil, err
	}
	right, err = in.Floats("right", true)
	return left, right, err
}

// PairUnits reads Pair and the optional column units, a unit ID per row
// (nil without it).
func (in *Columns) PairUnits() (left, right []float64, units []string, err error) {
	if left, right, err = in.Pair(); err != nil {
		return nil, nil, nil, err
	}
	units, err = in.Strings("units")
	return left, right, units, err
}

// KeyedPair reads the columns left and right as Keyed does.
func (in *Columns) KeyedPair() (left, right map[string]float64, err error) {
	if left, err = in.Keyed("left"); err != nil {
		return nil, nil, err
	}
	right, err = in.Keyed("right")
	return left, right, err
}

// DiffsOrPair reads the column diffs when there is one, else Pair.
func (in *Columns) DiffsOrPair() (diffs, left, right []float64, err error) {
	if in.Has("diffs") {
		diffs, err = in.Floats("diffs", true)
		return diffs, nil, nil, err
	}
	left, right, err = in.Pair()
	return nil, left, right, err
}

// Source names the input in messages: a path, or stdin.
func (in *Columns) Source() string { return in.source }

func (in *Columns) what() string {
	if in.fields != nil {
		return "array in the JSON object"
	}
	return "column in the CSV header"
}

// parseNumber accepts what JSON and CSV writers produce, NaN and Inf
// included: the methods refuse those themselves, with their own message.
func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

package scores

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/internal/input"
)

// ErrUnknownFormat is returned by OpenScores when the format argument names
// no supported format, or when it is empty and the file's extension is not
// one of .csv, .tsv, .jsonl, .ndjson (each optionally followed by .gz),
// .parquet or .npz. The message names the file, lists the formats and
// points at the --format flag.
var ErrUnknownFormat = errors.New("unknown scores format")

// ErrBadInput is wrapped by every error about the content of a scores file:
// the errors of OpenScores about a header, schema or array layout, and the
// errors that WideReader.Err and LongReader.Err report about a row. Callers
// use errors.Is(err, ErrBadInput) to tell a user's data error from an I/O
// failure. The message never repeats this sentinel's text; it reads like
//
//	scores.csv: line 12 (sample "u0000011"), column "ndcg@10": "abc" is not a number
//
// with the file as given to OpenScores, the line (text formats) or the
// 1-based data row (Parquet, NumPy), the sample ID when known and the column.
var ErrBadInput = errors.New("malformed scores file")

// maxDraw is the largest draw number; the store keeps draws in a smallint.
const maxDraw = math.MaxInt16

// maxMetrics is the most metrics a file may have, the store's bound on the
// metrics of one evaluation. The readers count a header's columns (a JSON
// object's keys, a Parquet schema's columns, an archive's arrays) against
// it before they hold them: a header of ten million columns is refused at
// the 1,003rd.
const maxMetrics = 1000

// headerColumns bounds the columns of a CSV or TSV header: sample_id, draw
// and the metrics.
var headerColumns = input.Columns{
	Max: maxMetrics + 2,
	Why: fmt.Sprintf("a scores file has sample_id, draw and at most %d metrics", maxMetrics),
}

// KnownFormat reports whether OpenScores accepts the format name, and
// whether the format is text (and so may be gzipped, and read once as a
// stream by ReadScores).
func KnownFormat(name string) (known, text bool) {
	switch name {
	case "csv", "tsv", "jsonl", "ndjson":
		return true, true
	case "parquet", "npz":
		return true, false
	}
	return false, false
}

const formatHelp = "the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, " +
	"and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it"

// Scores is an open per-unit scores file. Exactly one of Wide and Long is
// non-nil, depending on the file's columns. Close it when done.
type Scores struct {
	path   string
	reopen func() (*Scores, error) // the same input again, for locating duplicates
	format string                  // resolved: csv, tsv, jsonl, ndjson, parquet or npz
	file   *input.File
	meter  input.Meter
	wide   *WideReader
	long   *LongReader
	dec    decoder
}

// OpenScores opens the per-unit scores file at path and reads its header,
// schema or array headers, so that the form (wide or long), the metric names
// and the presence of a draw column are known when it returns.
//
// format is one of "csv", "tsv", "jsonl" ("ndjson" is the same), "parquet"
// and "npz", or "" to choose by the file name's extension: .csv, .tsv,
// .jsonl, .ndjson, .parquet or .npz. Text formats may be gzipped, named for
// example scores.csv.gz; a text file that starts with the gzip magic bytes is
// decompressed whatever its name.
//
// OpenScores returns an error wrapping ErrUnknownFormat when the format is
// unknown, one wrapping ErrBadInput when the header or schema is malformed
// (for example an empty file, no sample_id column, a duplicate column, no
// metric column, a 2-D NumPy array), and the *os.PathError of os.Open when
// the file cannot be opened.
func OpenScores(path, format string) (_ *Scores, err error) {
	format, err = scoresFormat(path, format)
	if err != nil {
		return nil, err
	}
	s := &Scores{path: path, format: format}
	s.reopen = func() (*Scores, error) { return OpenScores(path, format) }
	if s.file, err = input.Open(path, "a scores file", &s.meter); err != nil {
		return nil, err
	}
	if err := s.open(); err != nil {
		s.file.Close()
		return nil, err
	}
	return s, nil
}

// open reads the header of s.file, in s.format, and makes the reader.
func (s *Scores) open() (err error) {
	path, format := s.path, s.format
	var (
		dec decoder
		lay layout
	)
	switch format {
	case "csv", "tsv":
		var r io.Reader
		if r, err = s.file.Text(ErrBadInput); err == nil {
			comma := ','
			if format == "tsv" {
				comma = '\t'
			}
			dec, lay, err = openCSV(path, r, comma)
		}
	case "jsonl", "ndjson":
		var r io.Reader
		if r, err = s.file.Text(ErrBadInput); err == nil {
			dec, lay, err = openJSONL(path, r)
		}
	case "parquet":
		dec, lay, err = openParquet(path, s.file.ReaderAt(), s.file.Size())
	case "npz":
		dec, lay, err = openNPZ(path, s.file.ReaderAt(), s.file.Size())
	}
	if err != nil {
		return err
	}
	s.dec = dec
	c := cursor{at: input.Location{Path: path, Unit: lay.unit}, hasDraw: lay.hasDraw, dec: dec}
	// Parquet leaves its page indexes unread, so a finished file is
	// marked done here.
	c.atEnd = s.meter.Finish
	if lay.long {
		s.long = &LongReader{cursor: c}
	} else {
		c.rec.values = make([]float64, len(lay.metrics))
		s.wide = &WideReader{cursor: c, metrics: lay.metrics}
	}
	return nil
}

// ReadScores reads per-unit scores in a text format (csv, tsv, jsonl or
// ndjson, gzipped or not) from r, once, as OpenScores reads a file: a
// request's body, read while it arrives. name stands for the file in
// messages. reopen, when not nil, gives the same input again for Log to
// name the lines of a duplicate that the database finds; it is called only
// after r has been read to its end.
func ReadScores(r io.Reader, name, format string, reopen func() (*Scores, error)) (_ *Scores, err error) {
	f := strings.ToLower(format)
	if known, text := KnownFormat(f); !known || !text {
		return nil, fmt.Errorf("%s: %w %q: a stream is read in a text format, csv, tsv or jsonl; parquet and npz need a file", name, ErrUnknownFormat, format)
	}
	s := &Scores{path: name, format: f, reopen: reopen}
	s.file = input.Stream(r, name, 0, &s.meter)
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

// scoresFormat resolves OpenScores' format argument.
func scoresFormat(path, format string) (string, error) {
	if format != "" {
		f := strings.ToLower(format)
		if known, _ := KnownFormat(f); !known {
			return "", fmt.Errorf("%s: %w %q: %s", path, ErrUnknownFormat, format, formatHelp)
		}
		return f, nil
	}
	name := strings.ToLower(filepath.Base(path))
	base, gz := strings.CutSuffix(name, ".gz")
	ext := filepath.Ext(base)
	if f := strings.TrimPrefix(ext, "."); f != "" {
		if known, text := KnownFormat(f); known && (text || !gz) {
			return f, nil
		}
	}
	switch {
	case gz && (ext == ".parquet" || ext == ".npz"):
		return "", fmt.Errorf("%s: %w: only text formats may be gzipped; %s files are compressed inside already, so decompress this one first",
			path, ErrUnknownFormat, ext)
	case gz:
		ext += ".gz"
	case ext == "":
		return "", fmt.Errorf("%s: %w: the file name has no extension; %s", path, ErrUnknownFormat, formatHelp)
	}
	return "", fmt.Errorf("%s: %w %q: %s", path, ErrUnknownFormat, ext, formatHelp)
}

// Wide returns the reader of a file in wide form, or nil when the file is in
// long form.
func (s *Scores) Wide() *WideReader { return s.wide }

// Long returns the reader of a file in long form, or nil when the file is in
// wide form.
func (s *Scores) Long() *LongReader { return s.long }

// Progress reports how many bytes of the file on disk have been read so far
// and the file's size, for a progress bar. For compressed input done counts
// compressed bytes, so it still ends at total. It is cheap and safe to call
// from another goroutine while a reader runs.
func (s *Scores) Progress() (done, total int64) { return s.meter.Progress() }

// Close releases the file. The readers must not be used afterwards.
func (s *Scores) Close() error {
	err := s.dec.close()
	return errors.Join(err, s.file.Close())
}

// WideReader streams the rows of a scores file in wide form: one row per
// sample ID and draw, with one value per metric. It satisfies store.Rows.
type WideReader struct {
	cursor
	metrics []string
}

// Metrics names the metric columns in file order, the order of Values.
func (r *WideReader) Metrics() []string { return r.metrics }

// HasDraw reports whether the file has a draw column.
func (r *WideReader) HasDraw() bool { return r.hasDraw }

// Next advances to the next row. It returns false at the end of the file or
// at the first error, which Err then returns.
func (r *WideReader) Next() bool { return r.next() }

// SampleID is the current row's sample ID. It holds no reference to the
// reader's buffers, so it may be kept.
func (r *WideReader) SampleID() string { return r.rec.id }

// Draw is the current row's draw number, 0 when the file has no draw column.
func (r *WideReader) Draw() int64 { return r.rec.draw }

// Values are the current row's values, one per metric. Next reuses the slice.
func (r *WideReader) Values() []float64 { return r.rec.values }

// Where locates the current row, as "scores.csv: line 12" for text formats
// and "scores.parquet: row 12" (the 1-based data row) for the others.
func (r *WideReader) Where() string { return r.where(r.rec.pos) }

// Err returns the error that stopped Next, or nil at a clean end of input.
// Errors about the file's content wrap ErrBadInput.
func (r *WideReader) Err() error { return r.err }

// LongReader streams the records of a scores file in long form: one sample
// ID, draw, metric and value per record. It satisfies store.LongRows.
type LongReader struct {
	cursor
}

// HasDraw reports whether the file has a draw column.
func (r *LongReader) HasDraw() bool { return r.hasDraw }

// Next advances to the next record. It returns false at the end of the file
// or at the first error, which Err then returns.
func (r *LongReader) Next() bool { return r.next() }

// SampleID is the current record's sample ID. It holds no reference to the
// reader's buffers, so it may be kept.
func (r *LongReader) SampleID() string { return r.rec.id }

// Draw is the current record's draw number, 0 when the file has no draw
// column.
func (r *LongReader) Draw() int64 { return r.rec.draw }

// Metric is the current record's metric name.
func (r *LongReader) Metric() string { return r.rec.metric }

// Value is the current record's value.
func (r *LongReader) Value() float64 { return r.rec.value }

// Record is the current record's line (text formats) or 1-based data row
// (Parquet, NumPy).
func (r *LongReader) Record() int64 { return r.rec.pos }

// Where formats a record position as returned by Record, for example
// "scores.csv: line 12".
func (r *LongReader) Where(record int64) string { return r.where(record) }

// Err returns the error that stopped Next, or nil at a clean end of input.
// Errors about the file's content wrap ErrBadInput.
func (r *LongReader) Err() error { return r.err }

// cursor is what WideReader and LongReader share: the decoder and the
// current record.
type cursor struct {
	at      input.Location // the file, and what a position counts
	hasDraw bool
	dec     decoder
	rec     record
	err     error
	done    bool
	atEnd   func() // called at a clean end of input
}

func (c *cursor) next() bool {
	if c.done {
		return false
	}
	if err := c.dec.decode(&c.rec); err != nil {
		c.done = true
		if err == io.EOF {
			c.atEnd()
		} else {
			c.err = err
		}
		return false
	}
	return true
}

func (c *cursor) where(pos int64) string {
	at := c.at
	at.Pos = pos
	return at.String()
}

// decoder reads the records of one file format.
type decoder interface {
	// decode fills rec with the next record; for wide files rec.values has
	// one element per metric. It returns io.EOF at the end of the input.
	decode(rec *record) error
	close() error
}

// record is one row (wide form) or one record (long form).
type record struct {
	pos    int64 // line or 1-based row
	id     string
	draw   int64
	values []float64 // wide form
	metric string    // long form
	value  float64   // long form
}

// layout is what a file's header or schema says about its rows.
type layout struct {
	unit    string // "line" or "row"
	long    bool
	hasDraw bool
	metrics []string // wide form
}

// boundColumns are the columns of a columnar file (Parquet, NPZ) that a
// decoder reads, by role.
type boundColumns[C any] struct {
	id, draw, metric C // draw and metric are zero when absent
	values           []C
}

// bindColumns asks use for each column the layout needs, saying what it must
// hold, and returns them by role with the layout they make.
func bindColumns[C any](cols columns, names []string, use func(i int, want input.Want) (C, error)) (b boundColumns[C], lay layout, err error) {
	lay = layout{unit: "row", long: cols.long, hasDraw: cols.draw >= 0}
	if b.id, err = use(cols.id, input.WantID); err != nil {
		return b, lay, err
	}
	if cols.draw >= 0 {
		if b.draw, err = use(cols.draw, input.WantInteger); err != nil {
			return b, lay, err
		}
	}
	if cols.long {
		if b.metric, err = use(cols.metric, input.WantText); err != nil {
			return b, lay, err
		}
		v, err := use(cols.value, input.WantNumber)
		if err != nil {
			return b, lay, err
		}
		b.values = []C{v}
	}
	for _, i := range cols.metrics {
		v, err := use(i, input.WantNumber)
		if err != nil {
			return b, lay, err
		}
		b.values = append(b.values, v)
		lay.metrics = append(lay.metrics, names[i])
	}
	return b, lay, nil
}

// columns is where the named columns of a file are, by index into its
// column names.
type columns struct {
	long    bool
	id      int
	draw    int // -1 without a draw column
	metric  int // long form
	value   int // long form
	metrics []int
}

// findColumns decides the form of a file from its column names and locates
// the columns. kind is what the format calls a column ("column", "key",
// "array"). It returns a problem for the user, or "".
func findColumns(names []string, kind string) (columns, string) {
	c := columns{id: -1, draw: -1, metric: -1, value: -1}
	seen := make(map[string]int, len(names))
	for i, name := range names {
		if problem := input.NameProblem(names, i, kind, seen); problem != "" {
			return c, problem
		}
		switch name {
		case "sample_id":
			c.id = i
		case "draw":
			c.draw = i
		case "metric":
			c.metric = i
		case "value":
			c.value = i
		}
	}
	if c.id < 0 {
		return c, fmt.Sprintf("no %q %s among %s", "sample_id", kind, input.QuoteList(names))
	}
	special := 2 // sample_id, metric
	if c.draw >= 0 {
		special++
	}
	if c.metric >= 0 && c.value >= 0 && len(names) == special+1 {
		c.long = true
		return c, ""
	}
	if c.metric >= 0 {
		return c, fmt.Sprintf("%s %q next to other %ss: the long form has exactly the %ss sample_id, metric and value, and optionally draw",
			kind, "metric", kind, kind)
	}
	c.value = -1
	for i, name := range names {
		if name != "sample_id" && name != "draw" {
			c.metrics = append(c.metrics, i)
		}
	}
	if len(c.metrics) > maxMetrics {
		return c, fmt.Sprintf("%d metric %ss; at most %d are supported", len(c.metrics), kind, maxMetrics)
	}
	for _, i := range c.metrics {
		if p := nameProblem(names[i]); p != "" {
			return c, fmt.Sprintf("%s %d: %s", kind, i+1, p)
		}
	}
	if len(c.metrics) == 0 {
		return c, fmt.Sprintf("no metric %ss besides %s", kind, input.QuoteList(names))
	}
	return c, ""
}

// nameProblem says what is wrong with a metric name, of a column or of a
// long form's record: missing, too long, not UTF-8 or holding a NUL byte.
// It returns "" for a good name.
func nameProblem(name string) string {
	switch {
	case name == "":
		return "metric name missing"
	case len(name) > input.MaxNameBytes:
		return fmt.Sprintf("the metric name is %d bytes long; at most %d are allowed", len(name), input.MaxNameBytes)
	}
	return input.TextProblem("metric name", name)
}

// parseValue parses a metric value written as text, as Python, NumPy and
// pandas write numbers (input.ParseNumber): 1_0 and 0x1p-2 are not numbers.
// NaN and infinities are accepted in Go's and Python's spellings; the store
// refuses them with its own message. A value that is not zero but that a
// real (float4), as the store keeps values, would hold as 0 is refused
// (input.LostInReal): |x| ≤ 2^-150, such as 1e-50. It returns a problem for
// the user, or "".
func parseValue(s string) (float64, string) {
	if s == "" {
		return 0, "value missing"
	}
	t := s
	if t[0] == ' ' || t[len(t)-1] == ' ' {
		if t = strings.TrimSpace(t); t == "" {
			return 0, "value missing"
		}
	}
	v, err := input.ParseNumber(t)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange):
		// A copy, so that s does not escape and callers may pass a
		// string converted from bytes without allocating.
		return 0, fmt.Sprintf("%q is out of range", strings.Clone(s))
	case err != nil:
		return 0, fmt.Sprintf("%q is not a number", strings.Clone(s))
	case input.LostInReal(t, v):
		return 0, fmt.Sprintf("%q is too close to zero: a real (float4), as values are stored, would hold 0", strings.Clone(s))
	}
	return v, ""
}

// tinyProblem refuses a value of a binary file (Parquet, NumPy) that is
// not zero but that a real (float4) would hold as 0, as parseValue refuses
// its text. It returns a problem for the user, or "".
func tinyProblem(v float64) string {
	if input.LostInReal("", v) {
		return fmt.Sprintf("value %g is too close to zero: a real (float4), as values are stored, would hold 0", v)
	}
	return ""
}

// parseDraw parses a draw number written as text. It returns a problem for
// the user, or "".
func parseDraw(s string) (int64, string) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, "draw missing"
	}
	d, err := strconv.ParseInt(t, 10, 64)
	if err != nil || d < 0 || d > maxDraw {
		return 0, fmt.Sprintf("draw %q is not a whole number from 0 to %d", s, maxDraw)
	}
	return d, ""
}

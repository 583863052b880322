package scores

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/verdict-ml/verdict/internal/input"
)

// jsonlDecoder reads JSON Lines: one flat object per line, whose keys are
// fixed by the first line. It scans each line with a small hand-written
// parser instead of decoding into a map, which would allocate for every key
// and value; the objects are flat, so the grammar it needs is small.
type jsonlDecoder struct {
	path      string
	lines     *input.Lines
	first     []byte // the first line, kept past the next read
	keys      []string
	slot      map[string]int
	firstLine int64 // the line that fixed the keys
	cols      columns
	vals      []jsonValue // the current line's members, in line order
	byKey     []*jsonValue
	held      bool // the first line is read but not yet decoded
	ids       input.IDs
	metric    input.Interner
}

// jsonValue is one member of an object: its key and its value's literal.
type jsonValue struct {
	key  []byte
	kind byte   // one of the kind constants
	raw  []byte // the literal; for a string, with its quotes
	int  bool   // a number without fraction or exponent
}

// Kinds of JSON values. kindSpecial is Python's NaN, Infinity and -Infinity,
// which json.dumps writes by default.
const (
	kindString  = 's'
	kindNumber  = 'n'
	kindSpecial = 'x'
	kindNull    = 'z'
	kindBool    = 'b'
	kindObject  = 'o'
	kindArray   = 'a'
	// kindOther is a token that is no JSON value, such as 1_0, 0x1p-2 or
	// +3: refused with its key, and its sample, when it is decoded.
	kindOther = '?'
)

// openJSONL reads the first non-blank line of a JSON Lines file to learn its
// keys.
func openJSONL(path string, r io.Reader) (*jsonlDecoder, layout, error) {
	d := &jsonlDecoder{path: path, lines: input.NewLines(r), metric: input.Interner{}}
	line, err := d.readLine()
	if err == io.EOF {
		return nil, layout{}, input.Location{Path: path}.Errorf(ErrBadInput,
			"the file is empty; it needs one JSON object per line, with a sample_id key and one key per metric")
	}
	if err != nil {
		return nil, layout{}, err
	}
	d.first = append(d.first, line...)
	if d.vals, err = d.scan(d.first); err != nil {
		return nil, layout{}, err
	}
	d.firstLine = d.lines.N
	d.slot = make(map[string]int, len(d.vals))
	for _, v := range d.vals {
		d.keys = append(d.keys, string(v.key))
	}
	var problem string
	if d.cols, problem = findColumns(d.keys, "key"); problem != "" {
		return nil, layout{}, d.at().Errorf(ErrBadInput, "%s", problem)
	}
	for i, k := range d.keys {
		d.slot[k] = i
	}
	d.byKey = make([]*jsonValue, len(d.keys))
	d.held = true
	lay := layout{unit: "line", long: d.cols.long, hasDraw: d.cols.draw >= 0}
	for _, i := range d.cols.metrics {
		lay.metrics = append(lay.metrics, d.keys[i])
	}
	return d, lay, nil
}

// readLine returns the next line that is not blank, without its line end.
func (d *jsonlDecoder) readLine() ([]byte, error) {
	for {
		line, err := d.lines.Next()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, input.ReadError(ErrBadInput, input.Location{Path: d.path, Pos: d.lines.N + 1}, err)
		}
		if d.lines.N == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		line = bytes.TrimRight(line, " \t\r")
		if len(bytes.TrimLeft(line, " \t")) > 0 {
			return line, nil
		}
	}
}

func (d *jsonlDecoder) decode(rec *record) error {
	if d.held {
		d.held = false
	} else {
		line, err := d.readLine()
		if err != nil {
			return err
		}
		if d.vals, err = d.scanInto(line, d.vals[:0]); err != nil {
			return err
		}
	}
	rec.pos = d.lines.N
	a := d.at()
	a.ColumnNoun = "key"

	// Match the members to the first line's keys, in the common case by
	// position alone.
	clear(d.byKey)
	var extra []string
	for i := range d.vals {
		v := &d.vals[i]
		slot := -1
		if i < len(d.keys) && string(v.key) == d.keys[i] {
			slot = i
		} else if s, ok := d.slot[string(v.key)]; ok {
			slot = s
		}
		switch {
		case slot < 0:
			extra = append(extra, string(v.key))
		case d.byKey[slot] != nil:
			return a.Errorf(ErrBadInput, "key %q appears twice", v.key)
		default:
			d.byKey[slot] = v
		}
	}

	if v := d.byKey[d.cols.id]; v != nil {
		id, problem := d.sampleID(v)
		if problem != "" {
			return a.WithColumn("sample_id").Errorf(ErrBadInput, "%s", problem)
		}
		rec.id = id
		a = a.WithSample(id)
		if problem := input.IDProblem("sample ID", id); problem != "" {
			return a.WithColumn("sample_id").Errorf(ErrBadInput, "%s", problem)
		}
	}
	if len(extra) > 0 || len(d.vals)-len(extra) < len(d.keys) {
		var missing []string
		for i, v := range d.byKey {
			if v == nil {
				missing = append(missing, d.keys[i])
			}
		}
		return a.Errorf(ErrBadInput, "%s", d.keyMismatch(missing, extra))
	}

	if d.cols.draw >= 0 {
		v := d.byKey[d.cols.draw]
		draw, problem := jsonDraw(v)
		if problem != "" {
			return a.WithColumn("draw").Errorf(ErrBadInput, "%s", problem)
		}
		rec.draw = draw
	}
	if d.cols.long {
		v := d.byKey[d.cols.metric]
		if v.kind != kindString || len(v.raw) == 2 {
			return a.WithColumn("metric").Errorf(ErrBadInput, "expected a metric name, got %s", describe(v))
		}
		if bytes.IndexByte(v.raw, '\\') >= 0 {
			name, ok := unquote(v.raw)
			if !ok {
				return a.WithColumn("metric").Errorf(ErrBadInput, "%s", input.NotUTF8("metric name"))
			}
			rec.metric = d.metric.Intern(name)
		} else {
			rec.metric = d.metric.InternBytes(v.raw[1 : len(v.raw)-1])
		}
		if problem := nameProblem(rec.metric); problem != "" {
			return a.WithColumn("metric").Errorf(ErrBadInput, "%s", problem)
		}
		var problem string
		if rec.value, problem = jsonNumber(d.byKey[d.cols.value]); problem != "" {
			return a.WithColumn("value").Errorf(ErrBadInput, "%s", problem)
		}
		return nil
	}
	for i, slot := range d.cols.metrics {
		x, problem := jsonNumber(d.byKey[slot])
		if problem != "" {
			return a.WithColumn(d.keys[slot]).Errorf(ErrBadInput, "%s", problem)
		}
		rec.values[i] = x
	}
	return nil
}

// at locates the line read last.
func (d *jsonlDecoder) at() input.Location { return input.Location{Path: d.path, Pos: d.lines.N} }

// keyMismatch describes how a line's keys differ from the first line's.
func (d *jsonlDecoder) keyMismatch(missing, extra []string) string {
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("lacks %s", plural("key", missing)))
	}
	if len(extra) > 0 {
		parts = append(parts, fmt.Sprintf("has %s", plural("key", extra)))
	}
	return fmt.Sprintf("keys differ from line %d: this line %s", d.firstLine, strings.Join(parts, " and "))
}

// plural quotes a list of names after a noun, as `key "a"` or `keys "a", "b"`.
func plural(noun string, names []string) string {
	if len(names) == 1 {
		return noun + " " + strconv.Quote(names[0])
	}
	return noun + "s " + input.QuoteList(names)
}

// sampleID converts a sample_id value: a string, or an integer kept as
// its decimal text.
func (d *jsonlDecoder) sampleID(v *jsonValue) (string, string) {
	switch {
	case v.kind == kindString && bytes.IndexByte(v.raw, '\\') >= 0:
		id, ok := unquote(v.raw)
		if !ok {
			return id, input.NotUTF8("sample ID")
		}
		return d.ids.From(id), ""
	case v.kind == kindString:
		return d.ids.FromBytes(v.raw[1 : len(v.raw)-1]), ""
	case v.kind == kindNumber && v.int:
		return d.ids.FromBytes(v.raw), ""
	case v.kind == kindNull:
		return "", "sample ID missing"
	}
	return "", fmt.Sprintf("expected a string or an integer, got %s", describe(v))
}

// jsonDraw converts a draw value.
func jsonDraw(v *jsonValue) (int64, string) {
	if v.kind == kindNull {
		return 0, "draw missing"
	}
	if v.kind == kindNumber && v.int {
		if d, err := strconv.ParseInt(string(v.raw), 10, 64); err == nil && d >= 0 && d <= maxDraw {
			return d, ""
		}
	}
	return 0, fmt.Sprintf("draw %s is not a whole number from 0 to %d", describe(v), maxDraw)
}

// jsonNumber converts a metric value: a number, or Python's NaN, Infinity
// or -Infinity.
func jsonNumber(v *jsonValue) (float64, string) {
	switch v.kind {
	case kindNumber:
		return parseValue(string(v.raw))
	case kindSpecial:
		switch string(v.raw) {
		case "NaN":
			return math.NaN(), ""
		case "Infinity":
			return math.Inf(1), ""
		}
		return math.Inf(-1), ""
	case kindNull:
		return 0, "value missing"
	case kindOther:
		return 0, fmt.Sprintf("%s is not a number", describe(v))
	}
	return 0, fmt.Sprintf("expected a number, got %s", describe(v))
}

// describe names a value that has the wrong type.
func describe(v *jsonValue) string {
	switch v.kind {
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	case kindNull:
		return "null"
	}
	if len(v.raw) > 40 {
		return string(v.raw[:37]) + "..."
	}
	return string(v.raw)
}

// unquote decodes a JSON string literal with escapes. It reports false,
// with the literal without its quotes, for one that is not UTF-8 or whose
// escapes are no Unicode text (a lone surrogate such as \udc80, as Python
// writes a byte it could not decode), which encoding/json would turn into
// U+FFFD silently.
func unquote(raw []byte) (string, bool) {
	var s string
	if !utf8.Valid(raw) || json.Unmarshal(raw, &s) != nil {
		return string(raw[1 : len(raw)-1]), false
	}
	if strings.ContainsRune(s, utf8.RuneError) && !bytes.ContainsRune(raw, utf8.RuneError) &&
		!bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) {
		return string(raw[1 : len(raw)-1]), false
	}
	return s, true
}

func (d *jsonlDecoder) scan(line []byte) ([]jsonValue, error) { return d.scanInto(line, nil) }

// scanInto parses a line holding one flat JSON object into its members.
// Nested objects and arrays are skipped over, to be reported with their key.
func (d *jsonlDecoder) scanInto(line []byte, vals []jsonValue) ([]jsonValue, error) {
	s := jsonScanner{b: line}
	bad := func(what string) error {
		return d.at().Errorf(ErrBadInput, "invalid JSON at byte %d: %s", s.i+1, what)
	}
	s.space()
	if !s.eat('{') {
		return nil, bad("expected an object, one per line")
	}
	s.space()
	if s.peek() == '}' {
		return nil, bad("the object is empty")
	}
	for {
		s.space()
		if s.peek() != '"' {
			return nil, bad("expected a quoted key")
		}
		start := s.i
		if !s.str() {
			return nil, bad("unterminated string")
		}
		key := line[start+1 : s.i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			k, ok := unquote(line[start:s.i])
			if !ok {
				at := d.at().WithColumn(k)
				at.ColumnNoun = "key"
				return nil, at.Errorf(ErrBadInput, "%s", input.NotUTF8("key"))
			}
			key = []byte(k)
		}
		s.space()
		if !s.eat(':') {
			return nil, bad("expected ':' after the key")
		}
		s.space()
		v := jsonValue{key: key}
		start = s.i
		// badValue keeps a token that is no JSON value whole, for a
		// message that names its key and sample, or refuses the line.
		badValue := func() error {
			s.i = start
			for !s.atDelimiter() {
				s.i++
			}
			if s.i == start {
				return bad("expected a value")
			}
			v.kind = kindOther
			return nil
		}
		switch c := s.peek(); {
		case c == '"':
			v.kind = kindString
			if !s.str() {
				return nil, bad("unterminated string")
			}
		case c == '{' || c == '[':
			v.kind = kindObject
			if c == '[' {
				v.kind = kindArray
			}
			if !s.nested() {
				return nil, bad("unterminated object or array")
			}
		case c == 'n':
			v.kind = kindNull
			if !s.word("null") || !s.atDelimiter() {
				if err := badValue(); err != nil {
					return nil, err
				}
			}
		case c == 't' || c == 'f':
			v.kind = kindBool
			if (!s.word("true") && !s.word("false")) || !s.atDelimiter() {
				if err := badValue(); err != nil {
					return nil, err
				}
			}
		case c == 'N' || c == 'I' || c == '-' && s.i+1 < len(line) && line[s.i+1] == 'I':
			v.kind = kindSpecial
			if (!s.word("NaN") && !s.word("Infinity") && !s.word("-Infinity")) || !s.atDelimiter() {
				if err := badValue(); err != nil {
					return nil, err
				}
			}
		default:
			v.kind = kindNumber
			var ok bool
			if v.int, ok = s.number(); !ok || !s.atDelimiter() {
				if err := badValue(); err != nil {
					return nil, err
				}
			}
		}
		v.raw = line[start:s.i]
		if len(vals) == headerColumns.Max {
			return nil, d.at().Errorf(ErrBadInput, "the object has more than %d keys; %s", headerColumns.Max, headerColumns.Why)
		}
		vals = append(vals, v)
		s.space()
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			break
		}
		return nil, bad("expected ',' or '}'")
	}
	s.space()
	if s.i < len(line) {
		return nil, bad("text after the object; put one object on each line")
	}
	return vals, nil
}

// jsonScanner walks a line of JSON.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *jsonScanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *jsonScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\r' || s.b[s.i] == '\n') {
		s.i++
	}
}

// atDelimiter reports whether the scanner is at the end of a value: at the
// end of the line, white space, or a ',' or '}'.
func (s *jsonScanner) atDelimiter() bool {
	if s.i >= len(s.b) {
		return true
	}
	switch s.b[s.i] {
	case ',', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func (s *jsonScanner) word(w string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		s.i += len(w)
		return true
	}
	return false
}

// str skips a string literal, its quotes included.
func (s *jsonScanner) str() bool {
	for i := s.i + 1; i < len(s.b); i++ {
		switch s.b[i] {
		case '\\':
			i++
		case '"':
			s.i = i + 1
			return true
		}
	}
	return false
}

// nested skips an object or array.
func (s *jsonScanner) nested() bool {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if !s.str() {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		s.i++
		if depth == 0 {
			return true
		}
	}
	return false
}

// number skips a number as JSON writes it, and reports whether it is an
// integer (no fraction, no exponent).
func (s *jsonScanner) number() (isInt, ok bool) {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	s.eat('-')
	if s.eat('0') {
		if c := s.peek(); c >= '0' && c <= '9' {
			return false, false
		}
	} else if digits() == 0 {
		return false, false
	}
	isInt = true
	if s.eat('.') {
		isInt = false
		if digits() == 0 {
			return false, false
		}
	}
	if s.eat('e') || s.eat('E') {
		isInt = false
		if !s.eat('+') {
			s.eat('-')
		}
		if digits() == 0 {
			return false, false
		}
	}
	return isInt, true
}

func (d *jsonlDecoder) close() error { return nil }

package scores

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/verdict-ml/verdict/internal/input"
)

// readPredictionsJSONL reads a predictions file in JSON Lines from r, its
// text decompressed: one flat object per line, whose keys the first line
// fixes. It scans the lines with the scanner of the scores reader.
func readPredictionsJSONL(path string, r io.Reader, maxHeld int64) (*Predictions, error) {
	d := &jsonlDecoder{path: path, lines: input.NewLines(r)}
	line, err := d.readLine()
	if err == io.EOF {
		return nil, input.Location{Path: path}.Errorf(ErrBadPredictions, "the file is empty; it needs one JSON object per line: %s", predictionsHelp("key"))
	}
	if err != nil {
		return nil, predictionsJSONLError(err)
	}
	vals, err := d.scan(line)
	if err != nil {
		return nil, predictionsJSONLError(err)
	}
	d.firstLine = d.lines.N
	for _, v := range vals {
		d.keys = append(d.keys, string(v.key))
	}
	lay, problem := findPredictionColumns(d.keys, "key")
	if problem != "" {
		return nil, d.at().Errorf(ErrBadPredictions, "%s", problem)
	}
	slot := make(map[string]int, len(d.keys))
	for i, k := range d.keys {
		slot[k] = i
	}
	s := newPredictionSet(input.Location{Path: path, ColumnNoun: "key"}, lay, maxHeld)
	byKey := make([]*jsonValue, len(d.keys))
	for first := true; ; first = false {
		if !first {
			line, err := d.readLine()
			if err == io.EOF {
				return s.done("the file has no objects")
			}
			if err != nil {
				return nil, predictionsJSONLError(err)
			}
			if vals, err = d.scanInto(line, vals[:0]); err != nil {
				return nil, predictionsJSONLError(err)
			}
		}
		a := s.at(d.lines.N)

		// Match the members to the first line's keys, in the common case
		// by position alone.
		clear(byKey)
		var extra []string
		for i := range vals {
			v := &vals[i]
			k := -1
			if i < len(d.keys) && string(v.key) == d.keys[i] {
				k = i
			} else if j, ok := slot[string(v.key)]; ok {
				k = j
			}
			switch {
			case k < 0:
				extra = append(extra, string(v.key))
			case byKey[k] != nil:
				return nil, a.Errorf(ErrBadPredictions, "key %q appears twice", v.key)
			default:
				byKey[k] = v
			}
		}

		var id string
		if v := byKey[lay.id]; v != nil {
			if v.kind == kindNull {
				return nil, s.missingSample(a)
			}
			var problem string
			if id, problem = d.sampleID(v); problem != "" {
				return nil, a.WithColumn("sample_id").Errorf(ErrBadPredictions, "%s", problem)
			}
			if a, err = s.sample(a, id); err != nil {
				return nil, err
			}
		}
		if len(extra) > 0 || len(vals)-len(extra) < len(d.keys) {
			var missing []string
			for i, v := range byKey {
				if v == nil {
					missing = append(missing, d.keys[i])
				}
			}
			return nil, a.Errorf(ErrBadPredictions, "%s", d.keyMismatch(missing, extra))
		}
		label, err := s.label(a, jsonLabel(byKey[lay.label]))
		if err != nil {
			return nil, err
		}
		for i, k := range lay.scores {
			if err := s.jsonScore(a, i, byKey[k]); err != nil {
				return nil, err
			}
		}
		if err := s.add(a, id, label); err != nil {
			return nil, err
		}
	}
}

// predictionsJSONLError makes an error of the scores reader's JSON Lines
// scanner one about a predictions file: it wraps ErrBadPredictions rather
// than ErrBadInput, and says what bounds a predictions file's keys.
func predictionsJSONLError(err error) error {
	err = input.Rekind(err, ErrBadInput, ErrBadPredictions)
	if e, ok := err.(*input.Error); ok && strings.HasPrefix(e.Problem, "the object has more than ") {
		e.Problem = fmt.Sprintf("the object has more than %d keys; %s", predictionColumns.Max, predictionColumns.Why)
	}
	return err
}

// jsonLabel converts a label value: a string, a number, or a boolean.
func jsonLabel(v *jsonValue) labelValue {
	switch v.kind {
	case kindString:
		if bytes.IndexByte(v.raw, '\\') < 0 {
			return textLabel(string(v.raw[1 : len(v.raw)-1]))
		}
		s, _ := unquote(v.raw) // text that is not UTF-8 names no class
		return textLabel(s)
	case kindNumber:
		x, err := input.ParseNumber(string(v.raw))
		if err != nil {
			x = math.Inf(1) // out of range
		}
		l := numberLabel(x, string(v.raw))
		if !v.int {
			l.text, l.raw = floatText(x), string(v.raw)
		}
		return l
	case kindBool:
		return labelValue{kind: labelBool, truth: string(v.raw) == "true"}
	case kindNull:
		return labelValue{kind: labelMissing}
	}
	return labelValue{kind: labelOther, raw: describe(v)}
}

// jsonScore checks score i of the row at a, the value v: a number, or
// Python's NaN, Infinity or -Infinity, which are refused as not finite.
func (s *predictionSet) jsonScore(a input.Location, i int, v *jsonValue) error {
	switch v.kind {
	case kindNumber:
		return s.scoreNumber(a, i, string(v.raw), false)
	case kindSpecial:
		x := math.NaN()
		switch string(v.raw) {
		case "Infinity":
			x = math.Inf(1)
		case "-Infinity":
			x = math.Inf(-1)
		}
		return s.score(a, i, x, string(v.raw))
	case kindNull:
		return s.scoreMissing(a, i)
	case kindOther:
		return a.WithColumn(s.lay.names[i]).Errorf(ErrBadPredictions, "%s is not a number", describe(v))
	}
	return a.WithColumn(s.lay.names[i]).Errorf(ErrBadPredictions, "expected a number, got %s", describe(v))
}

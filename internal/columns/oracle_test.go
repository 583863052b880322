package columns

// The reader as it was before it parsed numbers as it read (commit
// 549fd92), for FuzzSameAsBefore to hold Read to: every value and every
// message the same.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"
)

// oldColumns is the data given to `verdict stats`: named columns of numbers
// or text, as a JSON object of arrays or a CSV file with a header.
type oldColumns struct {
	source string
	fields map[string]json.RawMessage // JSON input
	cols   map[string][]string        // CSV input, by header name
	bare   bool                       // one unnamed column of numbers: cols[""]
	order  []string                   // CSV header order
	rows   int
}

// Read reads r, named source in messages, in format: "json", "csv",
// "tsv", or "" to tell JSON (an object) from CSV by the first character.
func oldRead(r io.Reader, source, format string) (*oldColumns, error) {
	in := &oldColumns{source: source}
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err == nil && len(data) > MaxBytes {
		return nil, userError("%s: more than %d MiB: the statistics take their input in memory; sample it, or log it and use verdict compare", in.source, MaxBytes>>20)
	}
	if err != nil {
		return nil, userError("%s: %v", in.source, err)
	}
	if format == "" {
		format = "json"
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] != '{' {
			format = "csv"
		}
	}
	switch format {
	case "json":
		if err := json.Unmarshal(data, &in.fields); err != nil {
			return nil, userError("%s: not a JSON object of arrays: %v", in.source, err)
		}
	case "csv", "tsv":
		cr := csv.NewReader(bytes.NewReader(data))
		if format == "tsv" {
			cr.Comma = '\t'
		}
		cr.TrimLeadingSpace = true
		// Records are read one at a time into the columns, so that memory
		// holds the columns and not every record besides.
		cr.ReuseRecord = true
		head, err := cr.Read()
		if err == io.EOF {
			return nil, userError("%s: empty: want a header row naming the columns", in.source)
		}
		if err != nil {
			return nil, userError("%s: %v", in.source, err)
		}
		in.cols = map[string][]string{}
		in.order = slices.Clone(head)
		cols := make([][]string, len(head))
		for j, name := range in.order {
			switch {
			case strings.TrimSpace(name) == "":
				return nil, userError("%s: line 1: column %d has no name", in.source, j+1)
			case in.cols[name] != nil:
				return nil, userError("%s: line 1: column %q appears twice", in.source, name)
			}
			in.cols[name] = []string{}
		}
		if _, err := parseNumber(head[0]); len(head) == 1 && err == nil {
			// One number a line, without a header: the values of the one
			// column a command needs.
			in.bare, in.order, cols[0], in.rows = true, []string{""}, []string{head[0]}, 1
			in.cols = map[string][]string{"": {}}
		}
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, userError("%s: %v", in.source, err)
			}
			for j := range cols {
				cols[j] = append(cols[j], rec[j])
			}
			in.rows++
		}
		for j, name := range in.order {
			if cols[j] != nil {
				in.cols[name] = cols[j]
			}
		}
	default:
		return nil, userError("%s: unknown input format %q: want json, csv or tsv", in.source, format)
	}
	return in, nil
}

// Has reports whether the input has a column (or JSON field) name.
func (in *oldColumns) Has(name string) bool {
	if in.fields != nil {
		_, ok := in.fields[name]
		return ok
	}
	_, ok := in.cols[name]
	return ok
}

// Floats returns a numeric column. A missing column is an error when
// required, nil otherwise. Input of one number a line, without a header,
// is the column of any required name.
func (in *oldColumns) Floats(name string, required bool) ([]float64, error) {
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
	out := make([]float64, 0, in.rows)
	for i, s := range in.cols[name] {
		if strings.TrimSpace(s) == "" {
			continue // columns of different lengths end early
		}
		v, err := parseNumber(s)
		if err != nil {
			if in.bare {
				return nil, userError("%s: line %d: %v", in.source, i+1, err)
			}
			return nil, userError("%s: line %d, column %q: %v", in.source, i+2, name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Number returns a single number: a JSON number, or the first value of a
// CSV column.
func (in *oldColumns) Number(name string) (float64, bool, error) {
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

// Strings returns a column as text (unit IDs, names).
func (in *oldColumns) Strings(name string) ([]string, error) {
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
	return in.cols[name], nil
}

// Matrix returns a JSON array of rows of numbers, or every CSV column as one
// column of the matrix with the header as names.
func (in *oldColumns) Matrix(name string) (rows [][]float64, names []string, err error) {
	if in.fields == nil {
		names = in.order
		rows = make([][]float64, in.rows)
		for j, col := range names {
			for i, s := range in.cols[col] {
				v, err := parseNumber(s)
				if err != nil {
					return nil, nil, userError("%s: line %d, column %q: %v", in.source, i+2, col, err)
				}
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
func (in *oldColumns) Keyed(name string) (map[string]float64, error) {
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
	ids, ok := in.cols["id"]
	if !ok {
		return nil, userError("%s: no \"id\" column to match %q by", in.source, name)
	}
	out := make(map[string]float64, len(ids))
	for i, s := range in.cols[name] {
		if strings.TrimSpace(s) == "" {
			continue
		}
		v, err := parseNumber(s)
		if err != nil {
			if in.bare {
				return nil, userError("%s: line %d: %v", in.source, i+1, err)
			}
			return nil, userError("%s: line %d, column %q: %v", in.source, i+2, name, err)
		}
		out[ids[i]] = v
	}
	return out, nil
}

// Counts reads whole numbers given as single values (Number), all
// required: the counts of a 2×2 table, say.
func (in *oldColumns) Counts(names ...string) ([]int, error) {
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
func (in *oldColumns) Pair() (left, right []float64, err error) {
	if left, err = in.Floats("left", true); err != nil {
		return nil, nil, err
	}
	right, err = in.Floats("right", true)
	return left, right, err
}

// PairUnits reads Pair and the optional column units, a unit ID per row
// (nil without it).
func (in *oldColumns) PairUnits() (left, right []float64, units []string, err error) {
	if left, right, err = in.Pair(); err != nil {
		return nil, nil, nil, err
	}
	units, err = in.Strings("units")
	return left, right, units, err
}

// KeyedPair reads the columns left and right as Keyed does.
func (in *oldColumns) KeyedPair() (left, right map[string]float64, err error) {
	if left, err = in.Keyed("left"); err != nil {
		return nil, nil, err
	}
	right, err = in.Keyed("right")
	return left, right, err
}

// DiffsOrPair reads the column diffs when there is one, else Pair.
func (in *oldColumns) DiffsOrPair() (diffs, left, right []float64, err error) {
	if in.Has("diffs") {
		diffs, err = in.Floats("diffs", true)
		return diffs, nil, nil, err
	}
	left, right, err = in.Pair()
	return nil, left, right, err
}

func (in *oldColumns) what() string {
	if in.fields != nil {
		return "array in the JSON object"
	}
	return "column in the CSV header"
}

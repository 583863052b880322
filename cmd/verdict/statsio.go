package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
)

// statsInput is the data given to `verdict stats`: named columns of
// numbers or text, as a JSON object of arrays or a CSV file with a header.
type statsInput struct {
	source string
	fields map[string]json.RawMessage // JSON input
	cols   map[string][]string        // CSV input, by header name
	order  []string                   // CSV header order
	rows   int
}

// readStatsInput reads --input (or stdin) in the format its extension or
// --input-format names.
func readStatsInput(c *cli.Context) (*statsInput, error) {
	path, format := c.String("input"), c.String("input-format")
	var r io.Reader = os.Stdin
	in := &statsInput{source: "stdin"}
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, userError("--input: %v", err)
		}
		defer f.Close()
		r, in.source = f, path
		if format == "" {
			format = strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
		}
	}
	data, err := io.ReadAll(r)
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
		recs, err := cr.ReadAll()
		if err != nil {
			return nil, userError("%s: %v", in.source, err)
		}
		if len(recs) == 0 {
			return nil, userError("%s: empty: want a header row naming the columns", in.source)
		}
		in.cols = map[string][]string{}
		in.order = recs[0]
		for _, rec := range recs[1:] {
			for j, name := range recs[0] {
				in.cols[name] = append(in.cols[name], rec[j])
			}
		}
		in.rows = len(recs) - 1
	default:
		return nil, userError("%s: unknown input format %q: want json or csv (name it with --input-format)", in.source, format)
	}
	return in, nil
}

func (in *statsInput) has(name string) bool {
	if in.fields != nil {
		_, ok := in.fields[name]
		return ok
	}
	_, ok := in.cols[name]
	return ok
}

// floats returns a numeric column. A missing column is an error when
// required, nil otherwise.
func (in *statsInput) floats(name string, required bool) ([]float64, error) {
	if !in.has(name) {
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
			return nil, userError("%s: line %d, column %q: %v", in.source, i+2, name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// number returns a single number: a JSON number, or the first value of a
// CSV column.
func (in *statsInput) number(name string) (float64, bool, error) {
	if !in.has(name) {
		return 0, false, nil
	}
	if in.fields != nil {
		var v float64
		if err := json.Unmarshal(in.fields[name], &v); err != nil {
			return 0, false, userError("%s: %q is not a number", in.source, name)
		}
		return v, true, nil
	}
	vals, err := in.floats(name, true)
	if err != nil || len(vals) == 0 {
		return 0, false, err
	}
	return vals[0], true, nil
}

// strings returns a column as text (unit IDs, names).
func (in *statsInput) strings(name string) ([]string, error) {
	if !in.has(name) {
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

// matrix returns a JSON array of rows of numbers, or every CSV column as one
// column of the matrix with the header as names.
func (in *statsInput) matrix(name string) (rows [][]float64, names []string, err error) {
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
	if !in.has(name) {
		return nil, nil, userError("%s: no %q %s", in.source, name, in.what())
	}
	if err := json.Unmarshal(in.fields[name], &rows); err != nil {
		return nil, nil, userError("%s: %q is not an array of rows of numbers: %v", in.source, name, err)
	}
	if in.has("names") {
		if err := json.Unmarshal(in.fields["names"], &names); err != nil {
			return nil, nil, userError("%s: \"names\" is not an array of strings", in.source)
		}
	}
	return rows, names, nil
}

// keyed returns a JSON object {id: score}, or a CSV column keyed by the
// "id" column (rows with an empty value are absent).
func (in *statsInput) keyed(name string) (map[string]float64, error) {
	if !in.has(name) {
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
			return nil, userError("%s: line %d, column %q: %v", in.source, i+2, name, err)
		}
		out[ids[i]] = v
	}
	return out, nil
}

func (in *statsInput) what() string {
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

// ordered is a struct rendered field by field, in declaration order.
type ordered []field

type field struct {
	name  string
	value any // nil, bool, float64, int64, string, []any, ordered
}

// toOrdered converts a result (structs, slices, maps, scalars) for
// printing: fields in declaration order under their JSON names, and
// non-finite numbers as nil, since JSON has no NaN (the result's notes say
// why a value is undefined).
func toOrdered(v reflect.Value) any {
	if m, ok := v.Interface().(json.Marshaler); ok && v.Kind() != reflect.Pointer {
		// A type with its own JSON form (e.g. an empty winner as null).
		b, err := m.MarshalJSON()
		if err != nil {
			panic(fmt.Sprintf("verdict: %s: %v", v.Type(), err))
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			panic(fmt.Sprintf("verdict: %s: %v", v.Type(), err))
		}
		return fromJSON(x)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return toOrdered(v.Elem())
	case reflect.Struct:
		var out ordered
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if strings.Contains(opts, "omitempty") && v.Field(i).IsZero() {
				continue
			}
			out = append(out, field{name, toOrdered(v.Field(i))})
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return []any{}
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toOrdered(v.Index(i))
		}
		return out
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint())
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	case reflect.Map:
		var out ordered
		for _, k := range v.MapKeys() {
			out = append(out, field{fmt.Sprint(k.Interface()), toOrdered(v.MapIndex(k))})
		}
		// Maps print in key order, so that output is stable.
		slices.SortFunc(out, func(a, b field) int { return strings.Compare(a.name, b.name) })
		return out
	}
	panic(fmt.Sprintf("verdict: cannot render %s", v.Type()))
}

// fromJSON converts a decoded JSON value (objects as maps, in no order).
func fromJSON(x any) any {
	switch y := x.(type) {
	case map[string]any:
		var out ordered
		for k, v := range y {
			out = append(out, field{k, fromJSON(v)})
		}
		slices.SortFunc(out, func(a, b field) int { return strings.Compare(a.name, b.name) })
		return out
	case []any:
		for i := range y {
			y[i] = fromJSON(y[i])
		}
		return y
	}
	return x
}

// writeJSON writes an ordered value as indented JSON.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	appendJSON(&b, v, "")
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

func appendJSON(b *bytes.Buffer, v any, indent string) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case ordered:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, f := range x {
			name, _ := json.Marshal(f.name)
			b.WriteString(indent + "  " + string(name) + ": ")
			appendJSON(b, f.value, indent+"  ")
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			appendJSON(b, e, indent)
		}
		b.WriteString("]")
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	default:
		j, _ := json.Marshal(x)
		b.Write(j)
	}
}

// writeFields prints an ordered value as aligned "name  value" lines, with
// nested values indented.
func writeFields(w io.Writer, v any) error {
	o, ok := v.(ordered)
	if !ok {
		return errors.New("verdict: a result must be a struct")
	}
	var b strings.Builder
	writeFieldLines(&b, o, "")
	_, err := io.WriteString(w, b.String())
	return err
}

// fieldTable flattens a result into FIELD, VALUE rows, nested fields named
// with dots, for Markdown and CSV.
func fieldTable(v any) (report.Table, error) {
	t := report.Table{Header: []string{"FIELD", "VALUE"}}
	o, ok := v.(ordered)
	if !ok {
		return t, errors.New("verdict: a result must be a struct")
	}
	var walk func(o ordered, prefix string)
	walk = func(o ordered, prefix string) {
		for _, f := range o {
			if x, ok := f.value.(ordered); ok {
				walk(x, prefix+f.name+".")
				continue
			}
			t.Add(prefix+f.name, scalarText(f.value))
		}
	}
	walk(o, "")
	return t, nil
}

func writeFieldLines(b *strings.Builder, o ordered, indent string) {
	width := 0
	for _, f := range o {
		width = max(width, len(f.name))
	}
	for _, f := range o {
		switch x := f.value.(type) {
		case ordered:
			fmt.Fprintf(b, "%s%s:\n", indent, f.name)
			writeFieldLines(b, x, indent+"  ")
		case []any:
			if len(x) > 0 {
				if _, nested := x[0].(ordered); nested {
					fmt.Fprintf(b, "%s%s:\n", indent, f.name)
					for _, e := range x {
						var parts []string
						for _, g := range e.(ordered) {
							parts = append(parts, g.name+" "+scalarText(g.value))
						}
						fmt.Fprintf(b, "%s  - %s\n", indent, strings.Join(parts, ", "))
					}
					continue
				}
			}
			fmt.Fprintf(b, "%s%-*s  %s\n", indent, width, f.name, scalarText(x))
		default:
			fmt.Fprintf(b, "%s%-*s  %s\n", indent, width, f.name, scalarText(f.value))
		}
	}
}

func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return "undefined"
	case float64:
		return strconv.FormatFloat(x, 'g', 6, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = scalarText(e)
		}
		return strings.Join(parts, ", ")
	default:
		return fmt.Sprint(x)
	}
}

// toOrderedValue is toOrdered of any Go value.
func toOrderedValue(v any) any { return toOrdered(reflect.ValueOf(v)) }

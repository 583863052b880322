package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/stats"
)

// WriteJSON writes v to w as indented JSON followed by a newline, the form
// verdict's --format json prints:
//
//   - a struct is an object of its exported fields in declaration order,
//     named by their json tags (the Go name without one); a field tagged
//     json:"-" is left out, and so is an omitempty field that holds its
//     zero value or an empty slice or map, and an omitzero field that
//     holds its zero value;
//   - a map is an object with its keys in sorted order, so that output is
//     stable;
//   - a type with its own MarshalJSON is written as that JSON says, its
//     objects' keys in the order it writes them;
//   - NaN and ±Inf are null, since JSON has no such numbers (a result's
//     notes say why a value is undefined), and a nil pointer is null;
//   - a nil slice is [], not null: a list with nothing in it;
//   - integers and strings are as encoding/json writes them, and other
//     numbers in the shortest form that reads back exactly.
//
// Objects put one field a line, indented by two spaces a level. Arrays stay
// on one line, [1.5, null], and an array of objects opens each object on
// the line of the one before: [{ ... }, { ... }].
//
// Unlike encoding/json, an embedded struct is one field named after its
// type, not flattened into the outer object.
//
// The error is w's, or that of a MarshalJSON method. A value that has no
// JSON form, such as a channel, a function or a complex number, is a
// programming error: WriteJSON panics.
func WriteJSON(w io.Writer, v any) error {
	o, err := toOrdered(reflect.ValueOf(v))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	appendJSON(&b, o, "")
	b.WriteByte('\n')
	_, err = w.Write(b.Bytes())
	return err
}

// ordered is a struct or map rendered field by field, in order.
type ordered []field

type field struct {
	name  string
	value any // nil, bool, float64, int64, string, []any or ordered
}

// toOrdered converts a Go value for printing, as WriteJSON documents: to
// nil, bool, float64, int64, string, []any or ordered. Non-finite numbers
// become nil.
func toOrdered(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil // a nil interface
	}
	if n, ok := v.Interface().(stats.Note); ok {
		return NoteText(n), nil // a statistics note, said in words
	}
	if w, ok := v.Interface().(compare.Warning); ok {
		// A comparison's warning, its fields and the words people read.
		type plain compare.Warning
		x, err := toOrdered(reflect.ValueOf(plain(w)))
		if o, ok := x.(ordered); ok && err == nil {
			return append(o, field{"text", WarningText(w)}), nil
		}
		return x, err
	}
	if m, ok := v.Interface().(json.Marshaler); ok && v.Kind() != reflect.Pointer {
		// A type with its own JSON form (e.g. an empty winner as null,
		// a time as RFC 3339).
		b, err := m.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", v.Type(), err)
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		x, err := fromJSON(d)
		if _, end := d.Token(); err == nil && end != io.EOF {
			err = errors.New("data after its value")
		}
		if err != nil {
			return nil, fmt.Errorf("report: %s: MarshalJSON wrote invalid JSON: %w", v.Type(), err)
		}
		return x, nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return toOrdered(v.Elem())
	case reflect.Struct:
		out := ordered{}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && opts == "" {
				continue
			}
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				// An embedded struct's fields are the outer struct's, as
				// encoding/json writes them.
				x, err := toOrdered(v.Field(i))
				if err != nil {
					return nil, err
				}
				if inner, ok := x.(ordered); ok {
					out = append(out, inner...)
					continue
				}
			}
			if name == "" {
				name = f.Name
			}
			if hasOption(opts, "omitempty") && isEmpty(v.Field(i)) || hasOption(opts, "omitzero") && v.Field(i).IsZero() {
				continue
			}
			x, err := toOrdered(v.Field(i))
			if err != nil {
				return nil, err
			}
			out = append(out, field{name, x})
		}
		return out, nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return []any{}, nil
		}
		out := make([]any, v.Len())
		for i := range out {
			x, err := toOrdered(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		return f, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(v.Uint()), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.String:
		return v.String(), nil
	case reflect.Map:
		out := ordered{}
		for _, k := range v.MapKeys() {
			x, err := toOrdered(v.MapIndex(k))
			if err != nil {
				return nil, err
			}
			out = append(out, field{fmt.Sprint(k.Interface()), x})
		}
		slices.SortFunc(out, func(a, b field) int { return strings.Compare(a.name, b.name) })
		return out, nil
	}
	panic(fmt.Sprintf("report: cannot render a %s as JSON", v.Type()))
}

// hasOption reports whether a json tag's comma-separated options hold opt.
func hasOption(opts, opt string) bool {
	return slices.Contains(strings.Split(opts, ","), opt)
}

// isEmpty reports whether an omitempty field is left out: its zero value,
// or, as encoding/json has it, a slice or map with nothing in it.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}

// fromJSON reads one JSON value from d as ordered values: objects keep
// the order of their keys, so that a type's MarshalJSON says how its
// fields are ordered.
func fromJSON(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		var out any
		switch t {
		case '{':
			obj := ordered{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				x, err := fromJSON(d)
				if err != nil {
					return nil, err
				}
				obj = append(obj, field{k.(string), x})
			}
			out = obj
		case '[':
			arr := []any{}
			for d.More() {
				x, err := fromJSON(d)
				if err != nil {
					return nil, err
				}
				arr = append(arr, x)
			}
			out = arr
		}
		_, err := d.Token() // the closing delimiter
		return out, err
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n, nil
		}
		return t.Float64()
	}
	return t, nil // nil, a bool or a string
}

// appendJSON writes an ordered value to b; indent is the indentation of
// the line the value starts on.
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
			b.WriteString(indent + "  " + jsonScalar(f.name) + ": ")
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
		b.WriteString(jsonScalar(x))
	}
}

// jsonScalar encodes a string, number or boolean without escaping <, > and
// &: the output is read by people and scripts, not embedded in HTML, and
// "p < 0.001" should read as written.
func jsonScalar(x any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(x)
	return strings.TrimSuffix(b.String(), "\n")
}

package report

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// WriteFields writes a struct or map to w as aligned "name  value" lines,
// the readable form of `verdict stats` and `verdict show comparison`.
// Fields are named and ordered as WriteJSON names and orders them, and
// their names are padded to the longest one at their level. A nested
// object is its name and a colon, then its own fields indented by two
// spaces; a list of objects is one "- name value, name value" line per
// object; any other list is its values joined by ", ". Numbers have six
// significant digits ("0.294384"), whole numbers below 10¹⁵ in full ("df
// 9999999"), and a null (NaN, ±Inf, a nil pointer) prints as "-".
//
// A list of structs or maps is a table instead: a column a field, a row
// an element.
//
// WriteFields returns an error when v is not a struct, a map, a list of
// them, or a non-nil pointer to one, and the errors WriteJSON returns.
func WriteFields(w io.Writer, v any) error {
	if x, err := toOrdered(reflect.ValueOf(v)); err == nil {
		if list, ok := x.([]any); ok {
			return writeRecords(w, list, v)
		}
	}
	o, err := toObject(v)
	if err != nil {
		return err
	}
	var b strings.Builder
	writeFieldLines(&b, o, "")
	_, err = io.WriteString(w, b.String())
	return err
}

// writeRecords writes a list of objects with the same fields as a table:
// a column a field, a row an object.
func writeRecords(w io.Writer, list []any, v any) error {
	t := &Table{Right: map[int]bool{}}
	for i, e := range list {
		o, ok := e.(ordered)
		if !ok {
			return fmt.Errorf("report: a %T holds a %T: want a list of structs or maps", v, e)
		}
		row := make([]string, len(o))
		for j, f := range o {
			if i == 0 {
				t.Header = append(t.Header, strings.ToUpper(strings.ReplaceAll(f.name, "_", " ")))
				_, number := f.value.(float64)
				t.Right[j] = number
			}
			row[j] = fieldText(f.value)
		}
		t.Add(row...)
	}
	return t.Write(w, "table")
}

// FieldTable flattens a struct or map into a two-column table, FIELD and
// VALUE, for Markdown and CSV: one row a field, nested fields named with
// dots ("difference.low"), values as WriteFields writes them.
//
// FieldTable returns an error when v is not a struct, a map, or a non-nil
// pointer to one, and the errors WriteJSON returns.
func FieldTable(v any) (*Table, error) {
	o, err := toObject(v)
	if err != nil {
		return nil, err
	}
	t := &Table{Header: []string{"FIELD", "VALUE"}}
	var walk func(o ordered, prefix string)
	walk = func(o ordered, prefix string) {
		for _, f := range o {
			if x, ok := f.value.(ordered); ok {
				walk(x, prefix+f.name+".")
				continue
			}
			t.Add(prefix+f.name, fieldText(f.value))
		}
	}
	walk(o, "")
	return t, nil
}

// toObject converts v as WriteJSON does and checks that it is an object.
func toObject(v any) (ordered, error) {
	x, err := toOrdered(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	o, ok := x.(ordered)
	if !ok {
		return nil, fmt.Errorf("report: a %T has no fields: want a struct or a map", v)
	}
	return o, nil
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
						line := fieldText(e)
						if o, ok := e.(ordered); ok {
							line = objectText(o)
						}
						fmt.Fprintf(b, "%s  - %s\n", indent, line)
					}
					continue
				}
			}
			fmt.Fprintf(b, "%s%-*s  %s\n", indent, width, f.name, fieldText(x))
		default:
			fmt.Fprintf(b, "%s%-*s  %s\n", indent, width, f.name, fieldText(f.value))
		}
	}
}

// fieldText is a value as one line of text: "-" for null, whole numbers
// below 10¹⁵ in full, other numbers to six significant digits, lists joined by ", ", an object in a list as
// "{name value, name value}".
func fieldText(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case ordered:
		return "{" + objectText(x) + "}"
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fieldText(e)
		}
		return strings.Join(parts, ", ")
	default:
		return fmt.Sprint(x)
	}
}

// objectText is an object's fields as "name value, name value".
func objectText(o ordered) string {
	parts := make([]string, len(o))
	for i, f := range o {
		parts[i] = f.name + " " + fieldText(f.value)
	}
	return strings.Join(parts, ", ")
}

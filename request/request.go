// Package request declares the requests verdict's front doors take. A
// request is a Go struct in the package that owns its operation
// (compare.Request, …) whose fields carry their declaration in tags: the
// name, the default, the help text and where the field may come from. The
// command line's flags, the HTTP API's parameters, the OpenAPI document and
// the Python client's keyword arguments are all read from that one
// declaration, and every door decodes a request with Decode, so that the
// same input gives the same request and the same error whichever door it
// came through.
//
// The tags of a field:
//
//	req:"name"        the field's name, in snake_case: the API's parameter
//	                  and the client's keyword; the command line's flag is
//	                  the same name in kebab-case ("-" leaves the field out)
//	help:"text"       what the field is for
//	default:"value"   the value when the field is not given, as text
//	arg:"NAME"        the placeholder of the value in help texts
//	short:"m"         the command line's one-letter alias
//	pos:"1"           on the command line the field is the first positional
//	                  argument (pos:"*": every positional argument), not a flag
//	required:"true"   the request is refused without it
//	door:"api"        only the API and the client take the field as it is:
//	                  the command line says it its own way (a file flag)
//
// A field may be a string, []string, bool, int, int64, uint64 or float64,
// or a pointer to one of these but []string: a pointer stays nil when the
// field is not given, for rules that depend on whether it was.
package request

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ErrInvalid is wrapped by every error of Decode and of a request's
// checks: the input, not the system, is at fault.
var ErrInvalid = errors.New("invalid request")

// Kind is the type of a field's value, as the OpenAPI document names it.
type Kind string

const (
	String  Kind = "string"
	Integer Kind = "integer"
	Number  Kind = "number"
	Boolean Kind = "boolean"
)

// Field is one declared field of a request.
type Field struct {
	Name     string // snake_case
	Kind     Kind
	Repeat   bool   // a list: the parameter may be given several times
	Optional bool   // a pointer: nil when not given
	Unsigned bool   // a uint64: no sign, and no minus
	Help     string // what it is for; Choices are not in it
	Default  string // "" for none
	Arg      string // placeholder
	Short    string // command-line alias
	Pos      string // "" (a flag), "1", "2"… or "*"
	Required bool
	APIOnly  bool     // the command line says it its own way
	Choices  []string // the values it may take; nil for any

	index []int
}

// Flag is the field's command-line flag name: its name in kebab-case.
func (f Field) Flag() string { return strings.ReplaceAll(f.Name, "_", "-") }

// Chooser is implemented by requests with fields that take one of a list of
// values: it gives the lists, by field name. Decode refuses other values,
// and help texts and the OpenAPI document list them.
type Chooser interface {
	Choices() map[string][]string
}

// Requirer is implemented by requests that require fields they embed from
// a struct shared with requests that do not (a log needs its run's names,
// a computation that stores nothing does not): Required lists them.
type Requirer interface {
	Required() []string
}

var cache sync.Map // reflect.Type → []Field

// Fields returns the declared fields of the request v (a struct or a
// pointer to one), in the order of the struct.
func Fields(v any) []Field {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if fs, ok := cache.Load(t); ok {
		return fs.([]Field)
	}
	var choices map[string][]string
	if c, ok := reflect.New(t).Interface().(Chooser); ok {
		choices = c.Choices()
	}
	var required []string
	if r, ok := reflect.New(t).Interface().(Requirer); ok {
		required = r.Required()
	}
	var fields []Field
	for _, sf := range reflect.VisibleFields(t) {
		name := sf.Tag.Get("req")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		f := Field{Name: name, Help: sf.Tag.Get("help"), Default: sf.Tag.Get("default"), Arg: sf.Tag.Get("arg"),
			Short: sf.Tag.Get("short"), Pos: sf.Tag.Get("pos"), Required: sf.Tag.Get("required") == "true" || slices.Contains(required, name), APIOnly: sf.Tag.Get("door") == "api",
			Choices: choices[name], index: sf.Index}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			f.Optional, ft = true, ft.Elem()
		}
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String {
			f.Repeat, ft = true, ft.Elem()
		}
		switch ft.Kind() {
		case reflect.String:
			f.Kind = String
		case reflect.Bool:
			f.Kind = Boolean
		case reflect.Int, reflect.Int64:
			f.Kind = Integer
		case reflect.Uint64:
			f.Kind, f.Unsigned = Integer, true
		case reflect.Float64:
			f.Kind = Number
		default:
			panic(fmt.Sprintf("request: field %s of %s has type %s, which a request cannot hold", sf.Name, t, sf.Type))
		}
		fields = append(fields, f)
	}
	if n := tagged(t); n != len(fields) {
		panic(fmt.Sprintf("request: %s declares %d fields, but %d are visible: an embedded struct's field is hidden by another of its Go name", t, n, len(fields)))
	}
	cache.Store(t, fields)
	return fields
}

// tagged counts the declared fields of t, its embedded structs' included,
// hidden or not.
func tagged(t reflect.Type) int {
	n := 0
	for i := range t.NumField() {
		sf := t.Field(i)
		if name := sf.Tag.Get("req"); name != "" && name != "-" && sf.IsExported() {
			n++
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			n += tagged(sf.Type)
		}
	}
	return n
}

// Values are a request's fields as text, by name, as a query string gives
// them. A name that is present with no values is not given.
type Values = map[string][]string

// Decode fills the request dst points to from values: every field given is
// parsed and checked against its choices, every field not given takes its
// default; an empty value is no value. It refuses a name that is not a field of the request, a value
// that does not parse, a field given twice that is not a list, and a
// required field that is missing. It does not run the request's own checks.
func Decode(values Values, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	fields := Fields(dst)
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
	}
	var unknown []string
	for name := range values {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = f.Name
		}
		return &Error{msg: fmt.Sprintf("unknown parameter %s: the parameters are %s", strings.Join(unknown, ", "), strings.Join(names, ", "))}
	}
	var missing []string
	for _, f := range fields {
		var given []string
		for _, s := range values[f.Name] {
			if s != "" { // as a query string's name= says nothing
				given = append(given, s)
			}
		}
		if len(given) == 0 {
			if f.Required {
				missing = append(missing, "{"+f.Name+"}")
				continue
			}
			if f.Default == "" || f.Optional {
				continue
			}
			given = []string{f.Default}
		}
		if len(given) > 1 && !f.Repeat {
			return Errorf("{"+f.Name+"} is given %d times: give it once", len(given))
		}
		if err := f.set(v.FieldByIndex(f.index), given); err != nil {
			return err
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return Errorf(missing[0] + " is required")
	}
	return Errorf(strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1] + " are required")
}

// set parses text into fv, the field's value.
func (f Field) set(fv reflect.Value, text []string) error {
	for _, s := range text {
		if f.Choices != nil && !slices.Contains(f.Choices, s) {
			return Errorf("{"+f.Name+"} %q: want %s", s, orList(f.Choices))
		}
	}
	if f.Repeat {
		list := append([]string(nil), text...)
		fv.Set(reflect.ValueOf(list))
		return nil
	}
	s := text[0]
	if f.Optional {
		fv.Set(reflect.New(fv.Type().Elem()))
		fv = fv.Elem()
	}
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return Errorf("{"+f.Name+"} %q: want true or false", s)
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, fv.Type().Bits())
		if err != nil {
			return Errorf("{"+f.Name+"} %q: want a whole number", s)
		}
		if n < 0 {
			return Errorf("{"+f.Name+"} %d: want a number that is not negative", n)
		}
		fv.SetInt(n)
	case reflect.Uint64:
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return Errorf("{"+f.Name+"} %q: want a whole number from 0 to %d", s, uint64(math.MaxUint64))
		}
		fv.SetUint(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return Errorf("{"+f.Name+"} %q: want a finite number", s)
		}
		fv.SetFloat(x)
	}
	return nil
}

// orList is "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// Error is a problem with a request, said for the user. Its message names
// fields; Error spells them as the API and the client do (fdr_alpha), and
// Render as a door of its own does (--fdr-alpha on the command line).
type Error struct{ msg string } // fields marked as \x00name\x00

// Errorf makes an Error. Name a field as {name} in the format, not in the
// arguments: each door spells it its own way.
func Errorf(format string, args ...any) *Error {
	var b strings.Builder
	for {
		i := strings.IndexByte(format, '{')
		j := strings.IndexByte(format[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(format)
			break
		}
		if name := format[i+1 : i+j]; isName(name) {
			b.WriteString(format[:i] + "\x00" + name + "\x00")
		} else {
			b.WriteString(format[:i+j+1])
		}
		format = format[i+j+1:]
	}
	return &Error{msg: fmt.Sprintf(b.String(), args...)}
}

func (e *Error) Error() string { return e.Render(func(name string) string { return name }) }

func (e *Error) Unwrap() error { return ErrInvalid }

// Render gives the message with each field named by spell.
func (e *Error) Render(spell func(name string) string) string {
	parts := strings.Split(e.msg, "\x00")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = spell(parts[i])
	}
	return strings.Join(parts, "")
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

package request

import (
	"errors"
	"strings"
	"testing"
)

type sample struct {
	Name   string   `req:"name" required:"true" help:"a name"`
	Tags   []string `req:"tag" help:"tags"`
	N      int      `req:"n" default:"10" help:"a count"`
	Seed   uint64   `req:"seed" help:"a seed"`
	X      float64  `req:"x" default:"0.5" help:"a number"`
	Rope   *float64 `req:"rope" default:"0.01" help:"optional"`
	Flag   bool     `req:"flag" help:"a switch"`
	Mode   string   `req:"mode" default:"auto" help:"a choice"`
	Hidden string
	Skip   string `req:"-"`
}

func (sample) Choices() map[string][]string {
	return map[string][]string{"mode": {"auto", "fast", "slow"}}
}

func TestFieldsDeclare(t *testing.T) {
	fs := Fields(sample{})
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "name,tag,n,seed,x,rope,flag,mode" {
		t.Fatalf("fields %s", got)
	}
	if f := fs[1]; !f.Repeat || f.Kind != String {
		t.Errorf("tag: %+v", f)
	}
	if f := fs[5]; !f.Optional || f.Kind != Number || f.Default != "0.01" {
		t.Errorf("rope: %+v", f)
	}
	if f := fs[7]; strings.Join(f.Choices, ",") != "auto,fast,slow" {
		t.Errorf("mode choices: %v", f.Choices)
	}
	if fs[0].Flag() != "name" || (Field{Name: "fdr_alpha"}).Flag() != "fdr-alpha" {
		t.Error("flag names")
	}
}

func TestDecodeDefaultsAndValues(t *testing.T) {
	var s sample
	if err := Decode(Values{"name": {"a"}}, &s); err != nil {
		t.Fatal(err)
	}
	// The defaults of the tags; an optional field stays nil.
	if s.N != 10 || s.X != 0.5 || s.Mode != "auto" || s.Rope != nil || s.Flag || s.Tags != nil {
		t.Fatalf("defaults: %+v", s)
	}
	s = sample{}
	err := Decode(Values{"name": {"a"}, "tag": {"x", "", "y"}, "n": {"3"}, "seed": {"18446744073709551615"}, "x": {"-2.5"},
		"rope": {"0"}, "flag": {"true"}, "mode": {"slow"}}, &s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Tags, ",") != "x,y" || s.N != 3 || s.Seed != 18446744073709551615 || s.X != -2.5 || s.Rope == nil || *s.Rope != 0 || !s.Flag || s.Mode != "slow" {
		t.Fatalf("values: %+v", s)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct {
		v    Values
		want string
	}{
		{Values{}, "name is required"},
		{Values{"name": {""}}, "name is required"},
		{Values{"name": {"a"}, "bogus": {"1"}}, "unknown parameter bogus: the parameters are name, tag, n, seed, x, rope, flag, mode"},
		{Values{"name": {"a", "b"}}, "name is given 2 times: give it once"},
		{Values{"name": {"a"}, "n": {"-5"}}, "n -5: want a number that is not negative"},
		{Values{"name": {"a"}, "n": {"1.5"}}, `n "1.5": want a whole number`},
		{Values{"name": {"a"}, "seed": {"-1"}}, `seed "-1": want a whole number from 0 to 18446744073709551615`},
		{Values{"name": {"a"}, "x": {"NaN"}}, `x "NaN": want a finite number`},
		{Values{"name": {"a"}, "x": {"1e999"}}, `x "1e999": want a finite number`},
		{Values{"name": {"a"}, "flag": {"yes"}}, `flag "yes": want true or false`},
		{Values{"name": {"a"}, "mode": {"quick"}}, `mode "quick": want auto, fast or slow`},
	} {
		var s sample
		err := Decode(c.v, &s)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%v) = %v, want %q wrapping ErrInvalid", c.v, err, c.want)
		}
	}
}

func TestErrorSpellsFields(t *testing.T) {
	e := Errorf("{fdr_alpha} goes with {fdr} %s {not a field} %q", "PROCEDURE", "{fdr}")
	if got := e.Error(); got != `fdr_alpha goes with fdr PROCEDURE {not a field} "{fdr}"` {
		t.Errorf("Error() = %s", got)
	}
	got := e.Render(func(n string) string { return "--" + strings.ReplaceAll(n, "_", "-") })
	// A value that looks like a field is a value, and stays as given.
	if got != `--fdr-alpha goes with --fdr PROCEDURE {not a field} "{fdr}"` {
		t.Errorf("Render = %s", got)
	}
}

type named struct {
	Run string `req:"run" help:"the run"`
}

type hiding struct {
	named
	Named string `req:"named" help:"x"`
}

type shadowed struct {
	Run
}

type Run = named

// A field an embedded struct's name hides would silently be no field of
// the request: Fields refuses the declaration.
func TestFieldsRefuseAHiddenField(t *testing.T) {
	if fs := Fields(hiding{}); len(fs) != 2 {
		t.Fatalf("fields of hiding: %+v", fs)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Fields of a struct whose embedded Run hides its field Run did not panic")
		}
	}()
	Fields(shadowed{})
}

package stats_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/stats"
)

func TestMethodsCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range stats.Methods() {
		if m.Name == "" || m.Usage == "" || m.Options == nil || m.Run == nil {
			t.Errorf("method %q: a name, a usage, options and a run, got %+v", m.Name, m)
		}
		if seen[m.Name] {
			t.Errorf("method %q listed twice", m.Name)
		}
		seen[m.Name] = true

		opts := m.Options()
		if reflect.TypeOf(opts).Kind() != reflect.Pointer {
			t.Errorf("%s: Options gives %T, not a pointer", m.Name, opts)
			continue
		}
		required := false
		for _, f := range request.Fields(opts) {
			required = required || f.Required
		}
		err := request.Decode(request.Values{}, opts)
		if required {
			if !errors.Is(err, request.ErrInvalid) {
				t.Errorf("%s: a required field missing, decode gives %v", m.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: decode of no values: %v", m.Name, err)
			continue
		}
		// Every field given its declared default decodes to the same options.
		vals := request.Values{}
		for _, f := range request.Fields(opts) {
			if f.Default != "" {
				vals[f.Name] = []string{f.Default}
			}
		}
		given := m.Options()
		if err := request.Decode(vals, given); err != nil {
			t.Errorf("%s: decode of the defaults %v: %v", m.Name, vals, err)
		} else if !reflect.DeepEqual(opts, given) {
			t.Errorf("%s: no values decode to %+v, the defaults to %+v", m.Name, opts, given)
		}
	}
	if len(seen) != 14 {
		t.Errorf("%d methods, want 14", len(seen))
	}
}

func TestMethodRun(t *testing.T) {
	methods := map[string]stats.Method{}
	for _, m := range stats.Methods() {
		methods[m.Name] = m
	}
	in, err := columns.Read(strings.NewReader(`{"left": [1, 2, 3, 4], "right": [1.5, 2, 2.5, 3]}`), "test.json", "json")
	if err != nil {
		t.Fatal(err)
	}

	m := methods["paired-t"]
	opts := m.Options()
	if err := request.Decode(request.Values{"confidence": {"0.9"}}, opts); err != nil {
		t.Fatal(err)
	}
	got, err := m.Run(opts, in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := stats.PairedT([]float64{1, 2, 3, 4}, []float64{1.5, 2, 2.5, 3}, stats.PairedTOptions{Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paired-t: Run gives %+v, PairedT %+v", got, want)
	}

	// Run checks the options, as Check does: bayes-t needs the correlation
	// of the folds, or what gives it.
	m = methods["bayes-t"]
	opts = m.Options()
	if err := request.Decode(request.Values{}, opts); err != nil {
		t.Fatal(err)
	}
	checked := m.Check(opts)
	if _, err := m.Run(opts, in); !errors.Is(checked, request.ErrInvalid) || err == nil || err.Error() != checked.Error() {
		t.Errorf("bayes-t without rho, folds or sizes: Check gives %v, Run %v", checked, err)
	}

	// A method of its options alone reads no columns.
	m = methods["sample-size"]
	if m.Inputs != "" {
		t.Errorf("sample-size reads %q", m.Inputs)
	}
	opts = m.Options()
	if err := request.Decode(request.Values{"delta": {"0.05"}}, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(opts, nil); err != nil {
		t.Errorf("sample-size: %v", err)
	}
}

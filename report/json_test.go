package report_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/report"
)

type jsonInterval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

type jsonHolm struct {
	Name string  `json:"name"`
	P    float64 `json:"p_value"`
}

type jsonResult struct {
	Metric     string             `json:"metric"`
	N          int                `json:"n"`
	Difference jsonInterval       `json:"difference"`
	PValue     *float64           `json:"p_value"`
	Ranks      []float64          `json:"avg_ranks"`
	Holm       []jsonHolm         // no tag: the Go name
	Aggregates map[string]float64 `json:"aggregates"`
	Notes      []string           `json:"notes,omitempty"`
	Secret     string             `json:"-"`
	unexported int
}

// jsonWinner is a type with its own JSON: empty is null.
type jsonWinner string

func (w jsonWinner) MarshalJSON() ([]byte, error) {
	if w == "" {
		return []byte("null"), nil
	}
	return []byte(`"` + string(w) + `"`), nil
}

type jsonBroken struct{}

func (jsonBroken) MarshalJSON() ([]byte, error) { return nil, errors.New("broken") }

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	p := 0.034
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{
			name: "struct in field order with nested object, inline arrays and an array of objects",
			v: jsonResult{
				Metric: "ndcg@10", N: 300, Difference: jsonInterval{0.0123, -0.0007, 0.0254}, PValue: &p,
				Ranks: []float64{1.5, 2.5}, Holm: []jsonHolm{{"a", 0.25}, {"b", 0.5}},
				Aggregates: map[string]float64{"recall@20": 0.4, "ndcg@10": 0.3}, Secret: "x", unexported: 1,
			},
			want: `{
  "metric": "ndcg@10",
  "n": 300,
  "difference": {
    "estimate": 0.0123,
    "low": -0.0007,
    "high": 0.0254
  },
  "p_value": 0.034,
  "avg_ranks": [1.5, 2.5],
  "Holm": [{
    "name": "a",
    "p_value": 0.25
  }, {
    "name": "b",
    "p_value": 0.5
  }],
  "aggregates": {
    "ndcg@10": 0.3,
    "recall@20": 0.4
  }
}
`,
		},
		{
			name: "non-finite numbers and a nil pointer are null, a nil slice is [], an empty map {}",
			v: jsonResult{Difference: jsonInterval{math.NaN(), math.Inf(-1), math.Inf(1)},
				Ranks: []float64{math.NaN(), 1}, Aggregates: map[string]float64{}},
			want: `{
  "metric": "",
  "n": 0,
  "difference": {
    "estimate": null,
    "low": null,
    "high": null
  },
  "p_value": null,
  "avg_ranks": [null, 1],
  "Holm": [],
  "aggregates": {}
}
`,
		},
		{
			name: "omitempty keeps a list with something in it",
			v: struct {
				Notes []string `json:"notes,omitempty"`
			}{[]string{"t is undefined"}},
			want: "{\n  \"notes\": [\"t is undefined\"]\n}\n",
		},
		{
			name: "omitempty leaves out zero values and empty lists",
			v: struct {
				Notes []string          `json:"notes,omitempty"`
				Empty []string          `json:"empty,omitempty"`
				M     map[string]string `json:"m,omitempty"`
				N     int               `json:"n,omitempty"`
				S     string            `json:"s,omitempty"`
				P     *int              `json:"p,omitempty"`
				Kept  int               `json:"kept"`
			}{Empty: []string{}, M: map[string]string{}},
			want: "{\n  \"kept\": 0\n}\n",
		},
		{
			name: "top-level array of objects",
			v:    []jsonHolm{{"a", 0.25}, {"b", 1e-7}},
			want: "[{\n  \"name\": \"a\",\n  \"p_value\": 0.25\n}, {\n  \"name\": \"b\",\n  \"p_value\": 1e-07\n}]\n",
		},
		{
			name: "json.Marshaler types write their own JSON",
			v: struct {
				Winner jsonWinner `json:"winner"`
				Other  jsonWinner `json:"other"`
				At     time.Time  `json:"at"`
				AtPtr  *time.Time `json:"at_ptr"`
			}{Other: "candidate", At: time.Date(2024, 3, 1, 14, 30, 0, 0, time.UTC)},
			want: "{\n  \"winner\": null,\n  \"other\": \"candidate\",\n  \"at\": \"2024-03-01T14:30:00Z\",\n  \"at_ptr\": null\n}\n",
		},
		{
			name: "quotes are escaped, but <, > and & read as written (p < 0.001)",
			v:    map[string]any{"b": "<a & \"b\">", "a": []any{true, nil, int8(-3), uint(7)}},
			want: "{\n  \"a\": [true, null, -3, 7],\n  \"b\": \"<a & \\\"b\\\">\"\n}\n",
		},
		{name: "nil", v: nil, want: "null\n"},
		{name: "empty struct", v: struct{}{}, want: "{}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			require.NoError(t, report.WriteJSON(&b, c.v))
			require.Equal(t, c.want, b.String())
		})
	}
}

func TestWriteJSONErrors(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := report.WriteJSON(&b, []jsonBroken{{}})
	require.ErrorContains(t, err, "broken")
	require.Empty(t, b.String(), "nothing is written when a value fails")

	require.PanicsWithValue(t, "report: cannot render a chan int as JSON", func() {
		_ = report.WriteJSON(&b, struct{ C chan int }{})
	})
}

// jsonOrdered writes its fields in an order of its own.
type jsonOrdered struct{}

func (jsonOrdered) MarshalJSON() ([]byte, error) {
	return []byte(`{"z": 1, "a": [2.5, null], "m": {"y": true, "b": "x"}, "big": 9007199254740993}`), nil
}

func TestWriteJSONKeepsTheOrderOfAMarshaler(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, report.WriteJSON(&b, jsonOrdered{}))
	require.Equal(t, "{\n  \"z\": 1,\n  \"a\": [2.5, null],\n  \"m\": {\n    \"y\": true,\n    \"b\": \"x\"\n  },\n  \"big\": 9007199254740993\n}\n", b.String())
	require.Error(t, report.WriteJSON(&b, struct{ X jsonTrailing }{}))
}

// jsonTrailing writes more than one value.
type jsonTrailing struct{}

func (jsonTrailing) MarshalJSON() ([]byte, error) { return []byte(`1 2`), nil }

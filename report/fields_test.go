package report_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/report"
)

func TestWriteFields(t *testing.T) {
	t.Parallel()
	type holm struct {
		Name string  `json:"name"`
		P    float64 `json:"p_value"`
	}
	type interval struct {
		Estimate float64 `json:"estimate"`
		Low      float64 `json:"low"`
	}
	type result struct {
		N          int       `json:"n"`
		T          float64   `json:"t"`
		Z          *float64  `json:"z"`
		Ranks      []float64 `json:"avg_ranks"`
		Difference interval  `json:"difference"`
		Holm       []holm
		Notes      []string `json:"notes,omitempty"`
	}
	res := result{N: 3, T: math.Inf(1), Ranks: []float64{1.5, math.NaN()},
		Difference: interval{0.0123456789, -0.25},
		Holm:       []holm{{"b", 0.25}, {"c", 0.0123456789}},
		Notes:      []string{"t is undefined: every difference is equal"}}

	// Names are padded to the longest at their level, "difference"
	// included.
	var b strings.Builder
	require.NoError(t, report.WriteFields(&b, res))
	require.Equal(t, ""+
		"n           3\n"+
		"t           -\n"+
		"z           -\n"+
		"avg_ranks   1.5, -\n"+
		"difference:\n"+
		"  estimate  0.0123457\n"+
		"  low       -0.25\n"+
		"Holm:\n"+
		"  - name b, p_value 0.25\n"+
		"  - name c, p_value 0.0123457\n"+
		"notes       t is undefined: every difference is equal\n", b.String())

	// A pointer to a struct writes the struct.
	var p strings.Builder
	require.NoError(t, report.WriteFields(&p, &res))
	require.Equal(t, b.String(), p.String())

	tbl, err := report.FieldTable(res)
	require.NoError(t, err)
	require.Equal(t, []string{"FIELD", "VALUE"}, tbl.Header)
	require.Equal(t, [][]string{
		{"n", "3"},
		{"t", "-"},
		{"z", "-"},
		{"avg_ranks", "1.5, -"},
		{"difference.estimate", "0.0123457"},
		{"difference.low", "-0.25"},
		{"Holm", "{name b, p_value 0.25}, {name c, p_value 0.0123457}"},
		{"notes", "t is undefined: every difference is equal"},
	}, tbl.Rows)
}

func TestWriteFieldsWantsAnObject(t *testing.T) {
	t.Parallel()
	for _, v := range []any{[]int{1}, 3.5, nil, (*struct{ A int })(nil)} {
		var b strings.Builder
		require.Error(t, report.WriteFields(&b, v), "%#v", v)
		require.Empty(t, b.String())
		_, err := report.FieldTable(v)
		require.Error(t, err, "%#v", v)
	}
}

func TestWriteFieldsWholeNumbers(t *testing.T) {
	var b strings.Builder
	require.NoError(t, report.WriteFields(&b, struct {
		DF    float64  `json:"df"`
		Frac  float64  `json:"frac"`
		Huge  float64  `json:"huge"`
		Empty *float64 `json:"empty"`
	}{9999999, 17.4321, 1e20, nil}))
	require.Equal(t, "df     9999999\nfrac   17.4321\nhuge   1e+20\nempty  -\n", b.String())
	require.Equal(t, "9999999", report.DFText(9999999))
	require.Equal(t, "17.43", report.DFText(17.4321))
}

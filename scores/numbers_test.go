package scores_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

// Numbers are read as Python, NumPy and pandas write them, and nothing
// else: 1_0 was read as 10 and 0x1p-2 as 0.25. A value that the store's
// real (float4) would hold as 0 is refused too: 1e-50 became 0 silently
// (while 1e39, too large for a real, was refused by the store). Every
// refusal names the file, the line, the sample and the column.
func TestLenientNumbersRefused(t *testing.T) {
	t.Parallel()
	refused := []struct {
		text    string
		problem string // for CSV, after the text quoted
	}{
		{"1_0", "is not a number"},
		{"1__0", "is not a number"},
		{"0x1p-2", "is not a number"},
		{"0x10", "is not a number"},
		{"0X1P-2", "is not a number"},
		{"1.5.2", "is not a number"},
		{"1e", "is not a number"},
		{"e5", "is not a number"},
		{"--1", "is not a number"},
		{"+-1", "is not a number"},
		{"12abc", "is not a number"},
		{"0.5x", "is not a number"},
		{"x0.5", "is not a number"},
		{"1 2", "is not a number"},
		{"+nan", "is not a number"},
		{"infinit", "is not a number"},
		{"1e-50", "is too close to zero: a real (float4), as values are stored, would hold 0"},
		{"-1e-46", "is too close to zero: a real (float4), as values are stored, would hold 0"},
		{"1e-400", "is too close to zero: a real (float4), as values are stored, would hold 0"},
		{"1e400", "is out of range"},
	}
	accepted := []struct {
		text string
		want float64
	}{
		{"0.5", 0.5}, {"-1", -1}, {"1e-05", 1e-05}, {"1.5E+10", 1.5e10}, {"+3", 3}, {".5", 0.5}, {"5.", 5},
		{"1.000000000000000000e+00", 1}, {"-0", 0}, {"0e-400", 0}, {"1e-45", 1e-45}, {" 0.25 ", 0.25},
		{"inf", math.Inf(1)}, {"-inf", math.Inf(-1)}, {"Infinity", math.Inf(1)}, {"nan", math.NaN()}, {"NaN", math.NaN()},
	}

	for _, tt := range refused {
		t.Run("csv "+tt.text, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "scores.csv", []byte("sample_id,a\nu1,0.5\nu2,"+tt.text+"\n"))
			err := readAll(t, path, "")
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, fmt.Sprintf(`%s: line 3 (sample "u2"), column "a": %q %s`, path, tt.text, tt.problem))
		})
		t.Run("tsv long form "+tt.text, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "scores.tsv", []byte("sample_id\tmetric\tvalue\nu1\ta\t"+tt.text+"\n"))
			err := readAll(t, path, "")
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, fmt.Sprintf(`%s: line 2 (sample "u1"), column "value": %q %s`, path, tt.text, tt.problem))
		})
		t.Run("labels "+tt.text, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "labels.csv", []byte("sample_id,label\nu1,1\nu2,"+tt.text+"\n"))
			_, err := scores.ReadLabels(path)
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, fmt.Sprintf(`%s: line 3 (sample "u2"), column "label": label %q is not 0 or 1`, path, tt.text))
		})
	}

	// JSON writes numbers by its own grammar; the rest is refused with its
	// key and sample.
	jsonRefused := []struct{ text, problem string }{
		{"1_0", "1_0 is not a number"},
		{"0x1p-2", "0x1p-2 is not a number"},
		{"+3", "+3 is not a number"},
		{".5", ".5 is not a number"},
		{"5.", "5. is not a number"},
		{"01", "01 is not a number"},
		{"1e", "1e is not a number"},
		{"nan", "nan is not a number"},
		{"1e-50", `"1e-50" is too close to zero: a real (float4), as values are stored, would hold 0`},
		{"1e-400", `"1e-400" is too close to zero: a real (float4), as values are stored, would hold 0`},
		{"1e400", `"1e400" is out of range`},
	}
	for _, tt := range jsonRefused {
		t.Run("jsonl "+tt.text, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": "u1", "a": 0.5}`+"\n"+`{"sample_id": "u2", "a": `+tt.text+"}\n"))
			err := readAll(t, path, "")
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, fmt.Sprintf(`%s: line 2 (sample "u2"), key "a": %s`, path, tt.problem))
		})
	}

	// Binary files hold no text to misread, but a float64 that a real
	// would hold as 0 is refused there too.
	npz := inputtest.WriteNPZ(t, "scores.npz", 0,
		inputtest.Array("sample_id", inputtest.NPY(1, "'<U2'", "(2,)", inputtest.Strings(2, "u1", "u2"))),
		inputtest.Array("a", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, 1e-50))),
	)
	err := readAll(t, npz, "")
	require.ErrorIs(t, err, scores.ErrBadInput)
	require.EqualError(t, err, npz+`: row 2 (sample "u2"), array "a": value 1e-50 is too close to zero: a real (float4), as values are stored, would hold 0`)
	pq := inputtest.WriteParquet(t, "scores.parquet", []pqWide{{SampleID: "u1", NDCG: 0.5}, {SampleID: "u2", NDCG: -1e-300}})
	err = readAll(t, pq, "")
	require.ErrorIs(t, err, scores.ErrBadInput)
	require.EqualError(t, err, pq+`: row 2 (sample "u2"), column "ndcg@10": value -1e-300 is too close to zero: a real (float4), as values are stored, would hold 0`)

	for _, tt := range accepted {
		t.Run("accepted "+tt.text, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "scores.csv", []byte("sample_id,a\nu1,"+tt.text+"\n"))
			got, err := readWide(t, path, "")
			require.NoError(t, err)
			require.Len(t, got.Rows, 1)
			v := got.Rows[0].Values[0]
			if math.IsNaN(tt.want) {
				require.True(t, math.IsNaN(v), "%v", v)
				return
			}
			require.Equal(t, tt.want, v)
		})
	}
	for _, text := range []string{"0", "1", "1.0", "0.0", "1e+00", "-0", " 1 "} {
		t.Run("label "+text, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "labels.csv", []byte("sample_id,label\nu1,"+text+"\n"))
			_, err := scores.ReadLabels(path)
			require.NoError(t, err)
		})
	}
}

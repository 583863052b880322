package columns_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/columns"
)

func TestJSONAndCSVReadAlike(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, input, format string }{
		{"json", `{"left": [0.5, 1], "right": [0.25, "NaN"], "id": ["a", "b"]}`, ""},
		{"csv", "id,left,right\na,0.5,0.25\nb,1,NaN\n", ""},
		{"tsv", "id\tleft\tright\na\t0.5\t0.25\nb\t1\tNaN\n", "tsv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, err := columns.Read(strings.NewReader(tc.input), "in", tc.format)
			require.NoError(t, err)
			left, err := in.Floats("left", true)
			require.NoError(t, err)
			require.Equal(t, []float64{0.5, 1}, left)
			right, err := in.Floats("right", true)
			require.NoError(t, err)
			require.Len(t, right, 2)
			require.NotEqual(t, right[1], right[1], "NaN is read, for the method to refuse with its own message")
			ids, err := in.Strings("id")
			require.NoError(t, err)
			require.Equal(t, []string{"a", "b"}, ids)
			missing, err := in.Floats("diffs", false)
			require.NoError(t, err)
			require.Nil(t, missing)
		})
	}
}

func TestErrorsSayWhere(t *testing.T) {
	t.Parallel()
	in, err := columns.Read(strings.NewReader("left,right\n0.5,x\n"), "pairs.csv", "")
	require.NoError(t, err)
	_, err = in.Floats("right", true)
	require.ErrorIs(t, err, columns.ErrBadInput)
	require.EqualError(t, err, `pairs.csv: line 2, column "right": "x" is not a number`)
	_, err = in.Floats("diffs", true)
	require.ErrorIs(t, err, columns.ErrBadInput)
	require.Contains(t, err.Error(), `no "diffs" column`)
	_, err = columns.Read(strings.NewReader("{"), "stdin", "")
	require.ErrorIs(t, err, columns.ErrBadInput)
	require.Contains(t, err.Error(), "stdin: not a JSON object of arrays")
	_, err = columns.Read(strings.NewReader(""), "x.parquet", "parquet")
	require.ErrorIs(t, err, columns.ErrBadInput)

	// A header with a column twice, or one without a name, is refused
	// (found by FuzzRead: ",\n0,0" made Matrix index past a row).
	_, err = columns.Read(strings.NewReader(",\n0,0\n"), "m.csv", "")
	require.EqualError(t, err, "m.csv: line 1: column 1 has no name")
	_, err = columns.Read(strings.NewReader("a,b,a\n1,2,3\n"), "m.csv", "")
	require.ErrorIs(t, err, columns.ErrBadInput)
	require.EqualError(t, err, `m.csv: line 1: column "a" appears twice`)
}

func TestOneNumberALineIsTheRequiredColumn(t *testing.T) {
	t.Parallel()
	in, err := columns.Read(strings.NewReader("0.01\n0.2\n\n3e-4\n"), "in", "")
	require.NoError(t, err)
	p, err := in.Floats("p_values", true)
	require.NoError(t, err)
	require.Equal(t, []float64{0.01, 0.2, 3e-4}, p)
	optional, err := in.Floats("weights", false)
	require.NoError(t, err)
	require.Nil(t, optional, "an unnamed column is not an optional one")

	_, err = columns.Read(strings.NewReader("0.01\nx\n"), "in", "")
	require.NoError(t, err)
	in, _ = columns.Read(strings.NewReader("0.01\nx\n"), "in", "")
	_, err = in.Floats("p_values", true)
	require.ErrorIs(t, err, columns.ErrBadInput)
	require.ErrorContains(t, err, `in: line 2: "x" is not a number`)

	// A header that is a name is a header.
	in, err = columns.Read(strings.NewReader("p_values\n0.5\n"), "in", "")
	require.NoError(t, err)
	p, err = in.Floats("p_values", true)
	require.NoError(t, err)
	require.Equal(t, []float64{0.5}, p)
}

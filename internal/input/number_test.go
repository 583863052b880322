package input_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
)

func TestParseNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want float64
		err  error // strconv.ErrSyntax or strconv.ErrRange
		lost bool  // LostInReal
	}{
		// As Python's repr, NumPy's savetxt and pandas' to_csv write them.
		{text: "0.5", want: 0.5},
		{text: "-1", want: -1},
		{text: "1e-05", want: 1e-05},
		{text: "1.5E+10", want: 1.5e10},
		{text: "1.000000000000000000e+00", want: 1},
		{text: ".5", want: 0.5},
		{text: "5.", want: 5},
		{text: "+3", want: 3},
		{text: "-0", want: 0},
		{text: "0e-999", want: 0},
		{text: "inf", want: math.Inf(1)},
		{text: "-Infinity", want: math.Inf(-1)},
		{text: "NaN", want: math.NaN()},
		// Subnormal float4 values are kept; below them, 0 is refused.
		{text: "1.4e-45", want: 1.4e-45},
		{text: "1e-46", want: 1e-46, lost: true},
		{text: "-1e-50", want: -1e-50, lost: true},
		{text: "1e-400", want: 0, lost: true},
		{text: "1e400", want: math.Inf(1), err: strconv.ErrRange},
		// What strconv.ParseFloat reads, but no such program writes.
		{text: "1_0", err: strconv.ErrSyntax},
		{text: "0x1p-2", err: strconv.ErrSyntax},
		{text: "0X10", err: strconv.ErrSyntax},
		// And what nothing reads.
		{text: "", err: strconv.ErrSyntax},
		{text: ".", err: strconv.ErrSyntax},
		{text: "-", err: strconv.ErrSyntax},
		{text: "1e+", err: strconv.ErrSyntax},
		{text: "e1", err: strconv.ErrSyntax},
		{text: " 1", err: strconv.ErrSyntax},
		{text: "--inf", err: strconv.ErrSyntax},
		{text: "+nan", err: strconv.ErrSyntax},
		{text: "infinite", err: strconv.ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			v, err := input.ParseNumber(tt.text)
			if tt.err != nil {
				require.True(t, errors.Is(err, tt.err), "%v", err)
				if tt.err == strconv.ErrSyntax {
					return
				}
			} else {
				require.NoError(t, err)
			}
			if math.IsNaN(tt.want) {
				require.True(t, math.IsNaN(v))
				return
			}
			require.Equal(t, tt.want, v)
			require.Equal(t, tt.lost, input.LostInReal(tt.text, v))
		})
	}
}

package input_test

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
)

var errBad = errors.New("bad input for the tests")

func TestLocationString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		at   input.Location
		want string
	}{
		{name: "file", at: input.Location{Path: "scores.csv"}, want: "scores.csv"},
		{name: "line", at: input.Location{Path: "scores.csv", Pos: 12}, want: "scores.csv: line 12"},
		{
			name: "line, sample and column",
			at:   input.Location{Path: "scores.csv", Pos: 12, Sample: "u0000011", HasSample: true, Column: "ndcg@10"},
			want: `scores.csv: line 12 (sample "u0000011"), column "ndcg@10"`,
		},
		{
			name: "data row and column",
			at:   input.Location{Path: "scores.parquet", Unit: "row", Pos: 3, Column: "draw"},
			want: `scores.parquet: row 3, column "draw"`,
		},
		{
			name: "array of an archive",
			at:   input.Location{Path: "targets.npz", Column: "indptr", ColumnNoun: "array"},
			want: `targets.npz: array "indptr"`,
		},
		{
			name: "ranking row",
			at:   input.Location{Path: "items.npy", Row: 12, HasRow: true, Sample: "10000042", HasSample: true},
			want: `items.npy: row 12 (sample "10000042")`,
		},
		{
			name: "line of a ranking row, a query",
			at:   input.Location{Path: "run.txt", Pos: 7, Row: 2, HasRow: true, Sample: "301", HasSample: true, SampleNoun: "query"},
			want: `run.txt: line 7 (row 2, query "301")`,
		},
		{name: "line and ranking row", at: input.Location{Path: "p.csv", Pos: 3, Row: 1, HasRow: true}, want: "p.csv: line 3 (row 1)"},
		{name: "ranking row 0", at: input.Location{Path: "items.npy", HasRow: true}, want: "items.npy: row 0"},
		{name: "no file", at: input.Location{HasRow: true, Sample: "u1", HasSample: true}, want: `row 0 (sample "u1")`},
		{name: "empty sample ID", at: input.Location{Path: "s.csv", Pos: 2, HasSample: true}, want: `s.csv: line 2 (sample "")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, tt.at.String())
		})
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	at := input.Location{Path: "scores.csv", Pos: 2}.WithSample("u1").WithColumn("a")
	err := at.Errorf(errBad, "%q is not a number", "x")
	require.EqualError(t, err, `scores.csv: line 2 (sample "u1"), column "a": "x" is not a number`)
	require.ErrorIs(t, err, errBad)
	var ie *input.Error
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "u1", ie.Sample)
	require.Equal(t, "a", ie.Column)
	require.Equal(t, `"x" is not a number`, ie.Problem)

	err = input.Location{}.Errorf(errBad, "3 sample IDs and 2 rankings")
	require.EqualError(t, err, "3 sample IDs and 2 rankings")

	err = input.ReadError(errBad, input.Location{Path: "s.csv.gz", Pos: 7}, io.ErrUnexpectedEOF)
	require.EqualError(t, err, "s.csv.gz: line 7: the file is truncated")
	require.ErrorIs(t, err, errBad)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)

	err = input.ReadError(errBad, input.Location{Path: "s.csv", Pos: 7}, io.ErrClosedPipe)
	require.EqualError(t, err, "s.csv: line 7: io: read/write on closed pipe")
	require.NotErrorIs(t, err, errBad, "a failure of the system is not the user's input")
}

func TestQuoteList(t *testing.T) {
	t.Parallel()
	require.Equal(t, "none", input.QuoteList(nil))
	require.Equal(t, `"a", "b"`, input.QuoteList([]string{"a", "b"}))
	require.Equal(t, `"a", "b", "c", "d", "e", "f" and 2 more`, input.QuoteList([]string{"a", "b", "c", "d", "e", "f", "g", "h"}))
	require.Equal(t, "1 field", input.Fields(1))
	require.Equal(t, "0 fields", input.Fields(0))
}

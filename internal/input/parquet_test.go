package input_test

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

type pqRow struct {
	ID     string   `parquet:"id,dict"`
	Item   uint32   `parquet:"item"`
	Draw   int16    `parquet:"draw"`
	Name   string   `parquet:"name,dict"`
	Score  *float32 `parquet:"score,optional"`
	Nested []int64  `parquet:"nested"`
}

// openColumns opens the Parquet file at path and reads the named columns
// as asked.
func openColumns(t *testing.T, path string, want map[string]input.Want, names ...string) (*input.Batches, []*input.Column, error) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	info, err := f.Stat()
	require.NoError(t, err)
	pf, err := input.OpenParquet(path, f, info.Size(), errBad)
	require.NoError(t, err)
	leafs := map[string]*parquet.Column{}
	for _, c := range pf.Root().Columns() {
		leafs[c.Name()] = c
	}
	at := input.Location{Path: "t.parquet", Unit: "record"}
	var cols []*input.Column
	for _, name := range names {
		c, err := input.NewColumn(leafs[name], want[name], at, errBad)
		if err != nil {
			return nil, nil, err
		}
		cols = append(cols, c)
	}
	return input.NewBatches(pf, cols, at, errBad), cols, nil
}

func TestBatches(t *testing.T) {
	t.Parallel()
	const n = 10_000 // several batches and row groups
	var rows []pqRow
	for i := range n {
		r := pqRow{ID: fmt.Sprintf("u%d", i/3), Item: uint32(4_000_000_000 + i), Draw: int16(i % 3), Name: fmt.Sprint("m", i%2)}
		if i%7 != 0 {
			s := float32(i) / 4
			r.Score = &s
		}
		rows = append(rows, r)
	}
	path := inputtest.WriteParquet(t, "t.parquet", rows, parquet.MaxRowsPerRowGroup(3000), parquet.PageBufferSize(2048))
	want := map[string]input.Want{"id": input.WantID, "item": input.WantID, "draw": input.WantInteger, "name": input.WantText, "score": input.WantNumber}
	b, cols, err := openColumns(t, path, want, "id", "item", "draw", "name", "score")
	require.NoError(t, err)
	defer b.Close()
	id, item, draw, name, score := cols[0], cols[1], cols[2], cols[3], cols[4]
	i := 0
	for {
		k, err := b.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		for j := range k {
			r := rows[i]
			require.Equal(t, r.ID, id.S[j])
			require.Equal(t, fmt.Sprint(r.Item), item.S[j], "an unsigned integer ID as its decimal text")
			require.Equal(t, int64(r.Draw), draw.I[j])
			require.False(t, draw.Unsigned())
			require.Equal(t, r.Name, name.S[j])
			require.Equal(t, r.Score == nil, score.Null[j])
			if r.Score != nil {
				require.Equal(t, float64(*r.Score), score.F[j])
			}
			if j > 0 && id.S[j] == id.S[j-1] {
				require.Same(t, unsafeStringData(id.S[j]), unsafeStringData(id.S[j-1]), "a run of equal IDs shares one string")
			}
			i++
		}
	}
	require.Equal(t, n, i)
}

func TestNewColumnRefuses(t *testing.T) {
	t.Parallel()
	path := inputtest.WriteParquet(t, "t.parquet", []pqRow{{ID: "u1"}})
	tests := []struct {
		column string
		want   input.Want
		err    string
	}{
		{column: "id", want: input.WantNumber, err: `t.parquet: column "id": has type STRING; it must be a float, double or integer`},
		{column: "score", want: input.WantID, err: `t.parquet: column "score": has type FLOAT; it must be a string or an integer`},
		{column: "score", want: input.WantInteger, err: `t.parquet: column "score": has type FLOAT; it must be an integer`},
		{column: "draw", want: input.WantText, err: `t.parquet: column "draw": has type INT(16,true); it must be a string`},
		{column: "nested", want: input.WantNumber, err: `t.parquet: column "nested": is nested (a group, list or map); only flat columns of numbers and strings are supported`},
	}
	for _, tt := range tests {
		t.Run(tt.column, func(t *testing.T) {
			t.Parallel()
			_, _, err := openColumns(t, path, map[string]input.Want{tt.column: tt.want}, tt.column)
			require.EqualError(t, err, tt.err)
			require.ErrorIs(t, err, errBad)
		})
	}
}

func TestOpenParquetRefuses(t *testing.T) {
	t.Parallel()
	path := inputtest.WriteFile(t, "t.parquet", []byte("sample_id,a\nu1,1\n"))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = input.OpenParquet(path, f, 17, errBad)
	require.ErrorContains(t, err, path+": not a readable Parquet file: ")
	require.ErrorIs(t, err, errBad)
}

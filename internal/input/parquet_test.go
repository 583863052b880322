package input_test

import (
	"bytes"
	"encoding/binary"
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

// parquetWithFooter frames a Thrift-encoded footer as a Parquet file.
func parquetWithFooter(footer []byte) []byte {
	b := append([]byte("PAR1"), footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	return append(b, "PAR1"...)
}

// A footer whose lists and strings claim more than its bytes hold is
// refused before parquet-go decodes it: parquet-go sizes them by the claim,
// and a footer of a dozen bytes claiming two billion schema elements made
// it ask for 200 GB ("fatal error: out of memory", found by FuzzParquetScores).
func TestParquetFooterBombRefused(t *testing.T) {
	maxInt32 := []byte{0xff, 0xff, 0xff, 0xff, 0x07}
	nested := bytes.Repeat([]byte{0x1c}, 100) // field 1, a struct, 100 deep
	emptyStructs := append([]byte{0x15, 0x02, 0x19, 0xfc}, binary.AppendUvarint(nil, 200_000)...)
	emptyStructs = append(append(emptyStructs, make([]byte, 200_000)...), 0)
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{
			name: "a list of two billion schema elements",
			file: parquetWithFooter(append(append([]byte{0x15, 0x02, 0x19, 0xfc}, maxInt32...), 0, 0, 0)),
			want: "the footer is corrupt: a list claims 2147483647 elements, more than the bytes left",
		},
		{
			name: "a string of two gigabytes",
			file: parquetWithFooter(append(append([]byte{0x15, 0x02, 0x18}, maxInt32...), 'x', 0)),
			want: "the footer is corrupt: a string claims 2147483647 bytes, more than are left",
		},
		{
			name: "a map of two billion entries",
			file: parquetWithFooter(append(append([]byte{0x1b}, maxInt32...), 0x88, 0, 0)),
			want: "the footer is corrupt: a map claims 2147483647 entries, more than the bytes left",
		},
		{
			name: "structs nested a hundred deep",
			file: parquetWithFooter(append(nested, make([]byte, 101)...)),
			want: "the footer is corrupt: it nests too deep",
		},
		{
			name: "200,000 empty structs, each costing parquet-go hundreds of bytes",
			file: parquetWithFooter(emptyStructs),
			want: "the footer is corrupt: it declares more than a file of its size can hold",
		},
		{
			name: "a footer longer than the file",
			file: append([]byte("PAR1\x00\xff\xff\xff\x7f"), "PAR1"...),
			want: "the footer claims 2147483647 bytes, more than the file holds",
		},
		{
			name: "encrypted",
			file: append([]byte("PARE\x00\x01\x00\x00\x00"), "PARE"...),
			want: "the file is encrypted, which verdict does not read",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			alloc := inputtest.Allocated(func() {
				_, err = input.OpenParquet("t.parquet", bytes.NewReader(tt.file), int64(len(tt.file)), errBad)
			})
			require.EqualError(t, err, "t.parquet: not a readable Parquet file: "+tt.want)
			require.ErrorIs(t, err, errBad)
			require.Less(t, alloc, uint64(4<<20), "bytes allocated")
		})
	}
}

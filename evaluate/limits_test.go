package evaluate_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// maxAlloc bounds what reading a hostile file may allocate, freed or not:
// the readers hold a line of at most 4 MiB, a few times over in buffers.
const maxAlloc = 48 << 20

// A gzip stream that expands to one line of gigabytes is refused at that
// line once 4 MiB of it are read, in the TREC run and qrels and in the
// tables. The tests measure memory, so they run one at a time, not in
// parallel.
func TestHugeLineRefused(t *testing.T) {
	const gib = 5 << 10 // MiB of expanded text: 5 GiB
	small := writeFiles(t, map[string][]byte{
		"trec.run":        []byte("q1 Q0 d1 1 0.5 tag\n"),
		"trec.qrels":      []byte("q1 0 d1 1\n"),
		"predictions.csv": []byte("sample_id,item,rank\nu1,i1,1\n"),
		"targets.csv":     []byte("sample_id,item\nu1,i1\n"),
	})
	tooLong := "the line is longer than 4 MiB, the most a line may hold"
	tests := []struct {
		name   string // of the bomb, which stands in for the file of the same name in small
		prefix string
		want   string
	}{
		{name: "trec.run", prefix: "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.25 tag\nq2 Q0 ", want: "line 3: " + tooLong},
		{name: "trec.qrels", prefix: "q1 0 d1 1\nq1 0 ", want: "line 2: " + tooLong},
		{name: "predictions.csv", prefix: "sample_id,item,rank\nu1,i1,1\nu1,", want: "line 3: " + tooLong},
		{name: "targets.csv", prefix: "sample_id,item\nu1,", want: "line 2: " + tooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bomb := inputtest.GzipBomb(t, tt.name+".gz", []byte(tt.prefix), "d", gib, []byte(" 1\n"))
			path := func(name string) string {
				if name == tt.name {
					return bomb
				}
				return filepath.Join(small, name)
			}
			var err error
			alloc := inputtest.Allocated(func() {
				var r evaluate.Rankings
				if filepath.Ext(tt.name) == ".csv" {
					r, err = evaluate.OpenTableRankings(path("predictions.csv"), path("targets.csv"), evaluate.RankingOptions{})
				} else {
					r, err = evaluate.OpenTRECRankings(path("trec.run"), path("trec.qrels"), evaluate.RankingOptions{})
				}
				if err == nil {
					defer r.Close()
					_, _, err = readRankings(t, r)
				}
			})
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, bomb+": "+tt.want)
			require.Less(t, alloc, uint64(maxAlloc), "bytes allocated")
			t.Logf("%s: allocated %.1f MiB", tt.name, float64(alloc)/(1<<20))
		})
	}
}

// A plain header line of 64 MiB in a table is refused once 4 MiB of it are
// read, and so is a header of millions of columns at its 1,025th.
func TestHugeHeaderRefused(t *testing.T) {
	tests := []struct {
		name string
		fill string
		want string
	}{
		{name: "one long name", fill: "m", want: "line 1: the line is longer than 4 MiB, the most a line may hold"},
		{name: "millions of columns", fill: ",m", want: "line 1: the header has more than 1024 columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "targets.csv")
			f, err := os.Create(path)
			require.NoError(t, err)
			_, err = f.WriteString("sample_id,item,")
			require.NoError(t, err)
			for range 64 {
				_, err = f.WriteString(strings.Repeat(tt.fill, (1<<20)/len(tt.fill)))
				require.NoError(t, err)
			}
			_, err = f.WriteString("\nu1,i1\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
			alloc := inputtest.Allocated(func() { _, _, err = evaluate.FingerprintTargets(path, "", "") })
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, path+": "+tt.want)
			require.Less(t, alloc, uint64(maxAlloc), "bytes allocated")
			t.Logf("%s: allocated %.1f MiB", tt.name, float64(alloc)/(1<<20))
		})
	}
}

// A .npy header, or a sparse matrix's shape, may claim elements, a shape or
// a catalogue of any size; nothing is allocated by the claim. Arrays that
// cannot be read are refused with their file, and a matrix of two billion
// columns that holds few is read in little memory.
func TestNPYHugeItemRefused(t *testing.T) {
	oneRow := func(cols int, indices []int32, declare uint64) []byte {
		n := len(indices)
		if declare != 0 {
			n = int(declare-128) / 4
		}
		members := csrNPZ(1, cols, inputtest.Int64s(0, int64(n)), inputtest.Int32s(indices...), nil)
		members[0] = inputtest.Member{Name: "indices", Data: npyArr{"'<i4'", fmt.Sprintf("(%d,)", n), inputtest.Int32s(indices...)}.file(), Declare: declare}
		members[4] = inputtest.Member{Name: "data", Data: npyArr{"'|b1'", fmt.Sprintf("(%d,)", n), bytes.Repeat([]byte{1}, len(indices))}.file()}
		if declare != 0 {
			members[4].Declare = 128 + uint64(n)
		}
		return inputtest.Zip(zip.Store, members...)
	}
	tests := []struct {
		name  string
		files map[string][]byte // over numpyFiles
		rows  []rankedRow       // read without error
		want  string            // after the path of the file named first in files
	}{
		{
			name:  "items of strings of 200 MB",
			files: map[string][]byte{"items.npy": npyArr{"'<U50000000'", "(6, 4)", nil}.file()},
			want:  "has dtype <U50000000; item indices must be integers",
		},
		{
			name:  "sample IDs of 2 GB",
			files: map[string][]byte{"ids.npy": npyArr{"'|S2000000000'", "(6,)", nil}.file()},
			want:  "has dtype |S2000000000, strings longer than the 65536 bytes supported",
		},
		{
			name:  "items whose shape overflows",
			files: map[string][]byte{"items.npy": npyArr{"'<i8'", "(2305843009213693952, 1)", nil}.file()},
			want:  "has shape (2305843009213693952, 1), too large to be real; the header is corrupt",
		},
		{
			name:  "items whose shape the file does not hold",
			files: map[string][]byte{"items.npy": npyArr{"'<i4'", "(1000000, 10)", inputtest.Int32s(1, 2)}.file()},
			want:  "is truncated: it holds 8 bytes of data, less than the 40000000 of its shape (1000000, 10)",
		},
		{
			name: "a row of 100 million targets that are not there",
			files: map[string][]byte{
				"targets.npz": oneRow(10, []int32{1, 2}, 128+400_000_000),
				"items.npy":   npyArr{"'<i4'", "(1, 2)", inputtest.Int32s(1, 2)}.file(),
				"ids.npy":     npyArr{"'<U2'", "(1,)", inputtest.Strings(2, "u0")}.file(),
				"scores.npy":  npyArr{"'<f4'", "(1, 2)", inputtest.Float32s(2, 1)}.file(),
			},
			want: `array "indices": the array ends after 2 of its 100000000 values`,
		},
		{
			name: "two billion columns, few of them used",
			files: map[string][]byte{
				"targets.npz": oneRow(math.MaxInt32, []int32{math.MaxInt32 - 1, 7}, 0),
				"items.npy":   npyArr{"'<i4'", "(1, 3)", inputtest.Int32s(7, math.MaxInt32-2, math.MaxInt32-1)}.file(),
				"ids.npy":     npyArr{"'<U2'", "(1,)", inputtest.Strings(2, "u0")}.file(),
				"scores.npy":  npyArr{"'<f4'", "(1, 3)", inputtest.Float32s(3, 2, 1)}.file(),
			},
			rows: []rankedRow{{"u0", "x.x", 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := numpyFiles()
			var first string
			for name, b := range tt.files {
				files[name] = b
				first = name
			}
			if len(tt.files) > 1 {
				first = "targets.npz"
			}
			dir := writeFiles(t, files)
			path := func(name string) string { return filepath.Join(dir, name) }
			var (
				rows []rankedRow
				err  error
			)
			alloc := inputtest.Allocated(func() {
				var r *evaluate.NumPyRankings
				r, err = evaluate.OpenNumPyRankings(path("items.npy"), path("scores.npy"), path("targets.npz"), path("ids.npy"), evaluate.RankingOptions{})
				if err == nil {
					defer r.Close()
					rows, _, err = readRankings(t, r)
				}
			})
			require.Less(t, alloc, uint64(maxAlloc), "bytes allocated")
			t.Logf("allocated %.1f MiB", float64(alloc)/(1<<20))
			if tt.want == "" {
				require.NoError(t, err)
				require.Equal(t, tt.rows, rows)
				return
			}
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, path(first)+": "+tt.want)
		})
	}
}

// A query or sample ID longer than the store's 1,024 bytes is refused by
// the reader, which knows the file and line (the store knew only the row).
func TestLongSampleIDRefused(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("q", 2000)
	dir := writeFiles(t, map[string][]byte{
		"trec.run":   []byte("q1 Q0 d1 1 0.5 tag\n" + long + " Q0 d1 1 0.5 tag\n"),
		"trec.qrels": []byte("q1 0 d1 1\n"),
	})
	r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "trec.run"), filepath.Join(dir, "trec.qrels"), evaluate.RankingOptions{})
	require.NoError(t, err)
	defer r.Close()
	_, _, err = readRankings(t, r)
	require.ErrorIs(t, err, evaluate.ErrBadInput)
	require.EqualError(t, err, filepath.Join(dir, "trec.run")+`: line 2 (row 1, query "`+long[:64]+`"... (2000 bytes)): the query ID is 2000 bytes long; at most 1024 are allowed`)
}

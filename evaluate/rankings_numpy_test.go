package evaluate_test

import (
	"archive/zip"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// npyArr is an array to write as a .npy file: its dtype descr and shape as
// Python writes them, and its raw data.
type npyArr struct {
	descr string // such as "'<i4'"
	shape string // such as "(3, 2)"
	data  []byte
}

// file returns the whole .npy file.
func (a npyArr) file() []byte { return inputtest.NPY(1, a.descr, a.shape, a.data) }

// csrNPZ returns the members that scipy.sparse.save_npz writes for a CSR
// matrix, in its order: indices, indptr, format, shape, data.
func csrNPZ(rows, cols int, indptr, indices, data []byte) []inputtest.Member {
	return []inputtest.Member{
		inputtest.Array("indices", npyArr{"'<i4'", fmt.Sprintf("(%d,)", len(indices)/4), indices}.file()),
		inputtest.Array("indptr", npyArr{"'<i8'", fmt.Sprintf("(%d,)", len(indptr)/8), indptr}.file()),
		inputtest.Array("format", npyArr{"'|S3'", "()", []byte("csr")}.file()),
		inputtest.Array("shape", npyArr{"'<i8'", "(2,)", inputtest.Int64s(int64(rows), int64(cols))}.file()),
		inputtest.Array("data", npyArr{"'<f4'", fmt.Sprintf("(%d,)", len(data)/4), data}.file()),
	}
}

// numpyRows are the rows of the fixtures written by
// testdata/rankings/gen_numpy.py, with IDs by row index.
var numpyRows = []rankedRow{
	{"0", ".xx.", 2}, // targets 1 and 4
	{"1", "....", 0}, // no targets
	{"2", "..xx", 2}, // 8 and 2; column 3 is an explicit zero
	{"3", "...x", 2}, // 6 (stored twice) and 1
	{"4", "x...", 1}, // 5
	{"5", "....", 0}, // column 2 is an explicit zero: no targets
}

// numpyPrint is the fingerprint of the fixtures' targets with sample IDs
// made by ids.
func numpyPrint(ids func(row int) string) string {
	return targetsPrint(
		[]string{ids(0), "1", "4"},
		[]string{ids(2), "8", "2"},
		[]string{ids(3), "6", "1"},
		[]string{ids(4), "5"},
	)
}

// withIDs returns rows with other sample IDs, and the hits cut to width.
func withIDs(rows []rankedRow, ids []string, width int) []rankedRow {
	out := make([]rankedRow, len(rows))
	for i, r := range rows {
		if ids != nil {
			r.ID = ids[i]
		}
		r.Hits = r.Hits[:width]
		out[i] = r
	}
	return out
}

func TestNumPyRankings(t *testing.T) {
	t.Parallel()
	strIDs := []string{"u0", "u1", "u2", "u3", "u4", "ü5"}
	intIDs := []string{"100", "101", "102", "103", "104", "105"}
	tests := []struct {
		name                            string
		items, scores, targets, idsFile string
		opts                            evaluate.RankingOptions
		ids                             []string
		width                           int
		firsts                          []int64
	}{
		{
			name:  "compressed targets, no scores, row indices as IDs",
			items: "items.npy", targets: "targets.npz",
			width: 4, firsts: []int64{0},
		},
		{
			name:  "stored targets, scores, string IDs, batches of 4",
			items: "items.npy", scores: "scores.npy", targets: "targets_stored.npz", idsFile: "ids_str.npy",
			opts: evaluate.RankingOptions{BatchSize: 4},
			ids:  strIDs, width: 4, firsts: []int64{0, 4},
		},
		{
			name:  "int64 items, integer IDs, width 2, batches of 1",
			items: "items_i8.npy", scores: "scores.npy", targets: "targets.npz", idsFile: "ids_int.npy",
			opts: evaluate.RankingOptions{Width: 2, BatchSize: 1},
			ids:  intIDs, width: 2, firsts: []int64{0, 1, 2, 3, 4, 5},
		},
		{
			name:  "width above K",
			items: "items.npy", targets: "targets.npz",
			opts:  evaluate.RankingOptions{Width: 100},
			width: 4, firsts: []int64{0},
		},
		{
			name:  "without validation",
			items: "items_i8.npy", scores: "scores.npy", targets: "targets_stored.npz", idsFile: "ids_str.npy",
			opts: evaluate.RankingOptions{SkipValidation: true, BatchSize: 5},
			ids:  strIDs, width: 4, firsts: []int64{0, 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyFixtures(t, "items.npy", "items_i8.npy", "scores.npy", "targets.npz", "targets_stored.npz", "ids_str.npy", "ids_int.npy")
			path := func(name string) string {
				if name == "" {
					return ""
				}
				return filepath.Join(dir, name)
			}
			r, err := evaluate.OpenNumPyRankings(path(tt.items), path(tt.scores), path(tt.targets), path(tt.idsFile), tt.opts)
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, tt.width, r.Width())
			require.Equal(t, 4, r.K())
			require.Equal(t, int64(6), r.Rows())
			rows, firsts, err := readRankings(t, r)
			require.NoError(t, err)
			require.Equal(t, withIDs(numpyRows, tt.ids, tt.width), rows)
			require.Equal(t, tt.firsts, firsts)
			id := func(row int) string { return fmt.Sprint(row) }
			if tt.ids != nil {
				id = func(row int) string { return tt.ids[row] }
			}
			require.Equal(t, numpyPrint(id), r.Targets().Sum())
			require.Equal(t, uint64(4), r.Targets().Len())
			done, total := r.Progress()
			require.Equal(t, total, done)
			require.NoError(t, r.Close())
		})
	}
}

// numpyFiles returns the fixtures' arrays written in Go, with string sample
// IDs u0 to u5, for tests to alter: items.npy, scores.npy, targets.npz
// (stored) and ids.npy. Their rows are numpyRows.
func numpyFiles() map[string][]byte {
	return map[string][]byte{
		"items.npy":   npyArr{"'<i4'", "(6, 4)", inputtest.Int32s(3, 1, 4, 0, 2, 5, 7, 9, 0, 6, 8, 2, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4)}.file(),
		"scores.npy":  npyArr{"'<f4'", "(6, 4)", inputtest.Float32s(0.9, 0.8, 0.8, 0.1, 4, 3, 2, 1, 1, 0.5, 0.25, 0, -1, -2, -3, -4, 0.5, 0.5, 0.5, 0.5, 3, 2, 1, 0)}.file(),
		"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2)),
		"ids.npy":     npyArr{"'<U2'", "(6,)", inputtest.Strings(2, "u0", "u1", "u2", "u3", "u4", "u5")}.file(),
	}
}

// numpyData is the data of the fixtures' targets, with its explicit zeros.
var numpyData = inputtest.Float32s(1, 1, 1, 2, 0, 1, 1, 1, 1, 0)

// numpyTargets returns a stored targets .npz of 6 rows and 10 columns with
// the given indptr and 10 indices, and the fixtures' data.
func numpyTargets(indptr, indices []byte) []byte {
	return inputtest.Zip(zip.Store, csrNPZ(6, 10, indptr, indices, numpyData)...)
}

// replaceMember returns the members with the one named like m replaced by
// m, or without it when m has no data.
func replaceMember(members []inputtest.Member, m inputtest.Member) []inputtest.Member {
	var out []inputtest.Member
	for _, old := range members {
		switch {
		case old.Name != m.Name:
			out = append(out, old)
		case m.Data != nil:
			out = append(out, m)
		}
	}
	return out
}

// withMember returns the default targets with one member replaced, or left
// out when m has no data.
func withMember(m inputtest.Member) []byte {
	members := csrNPZ(6, 10, inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2), numpyData)
	return inputtest.Zip(zip.Store, replaceMember(members, m)...)
}

func TestNumPyRankingsBad(t *testing.T) {
	t.Parallel()
	itemsWith := func(row, rank int, item int32) []byte {
		v := []int32{3, 1, 4, 0, 2, 5, 7, 9, 0, 6, 8, 2, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4}
		v[4*row+rank-1] = item
		return npyArr{"'<i4'", "(6, 4)", inputtest.Int32s(v...)}.file()
	}
	scoresWith := func(row, rank int, s float32) []byte {
		v := []float32{0.9, 0.8, 0.8, 0.1, 4, 3, 2, 1, 1, 0.5, 0.25, 0, -1, -2, -3, -4, 0.5, 0.5, 0.5, 0.5, 3, 2, 1, 0}
		v[4*row+rank-1] = s
		return npyArr{"'<f4'", "(6, 4)", inputtest.Float32s(v...)}.file()
	}
	tests := []struct {
		name   string
		change map[string][]byte // nil data removes a file
		opts   evaluate.RankingOptions
		atOpen bool
		want   string
	}{
		// The shapes and types of the arrays, checked by OpenNumPyRankings.
		{
			name:   "items 1-D",
			change: map[string][]byte{"items.npy": npyArr{"'<i4'", "(6,)", inputtest.Int32s(1, 2, 3, 4, 5, 6)}.file()},
			atOpen: true,
			want:   "DIR/items.npy: has shape (6,); the predictions must be a 2-D array, one row of item indices per sample",
		},
		{
			name:   "items float",
			change: map[string][]byte{"items.npy": npyArr{"'<f4'", "(6, 4)", make([]byte, 96)}.file()},
			atOpen: true,
			want:   "DIR/items.npy: has dtype float32; item indices must be integers",
		},
		{
			name:   "items bool",
			change: map[string][]byte{"items.npy": npyArr{"'|b1'", "(6, 4)", make([]byte, 24)}.file()},
			atOpen: true,
			want:   "DIR/items.npy: has dtype bool; item indices must be integers",
		},
		{
			name:   "items in Fortran order",
			change: map[string][]byte{"items.npy": inputtest.Fortran(numpyFiles()["items.npy"])},
			atOpen: true,
			want:   "DIR/items.npy: is in Fortran order; save np.ascontiguousarray(items) instead",
		},
		{
			name:   "items not a .npy file",
			change: map[string][]byte{"items.npy": []byte("sample_id,item\n3,4\n")},
			atOpen: true,
			want:   "DIR/items.npy: not a .npy array: it does not start with the NumPy magic string",
		},
		{
			name:   "scores of another shape",
			change: map[string][]byte{"scores.npy": npyArr{"'<f4'", "(6, 3)", make([]byte, 72)}.file()},
			atOpen: true,
			want:   "DIR/scores.npy: has shape (6, 3), but DIR/items.npy has shape (6, 4)",
		},
		{
			name:   "scores of integers",
			change: map[string][]byte{"scores.npy": npyArr{"'<i4'", "(6, 4)", make([]byte, 96)}.file()},
			atOpen: true,
			want:   "DIR/scores.npy: has dtype int32; scores must be floats",
		},
		{
			name:   "scores in Fortran order",
			change: map[string][]byte{"scores.npy": inputtest.Fortran(numpyFiles()["scores.npy"])},
			atOpen: true,
			want:   "DIR/scores.npy: is in Fortran order; save np.ascontiguousarray(scores) instead",
		},
		{
			name:   "sample IDs 2-D",
			change: map[string][]byte{"ids.npy": npyArr{"'<i8'", "(6, 1)", make([]byte, 48)}.file()},
			atOpen: true,
			want:   "DIR/ids.npy: has shape (6, 1); sample IDs must be a 1-D array",
		},
		{
			name:   "sample IDs of floats",
			change: map[string][]byte{"ids.npy": npyArr{"'<f8'", "(6,)", make([]byte, 48)}.file()},
			atOpen: true,
			want:   "DIR/ids.npy: has dtype float64; sample IDs must be integers or strings",
		},
		{
			name:   "sample IDs as Python objects",
			change: map[string][]byte{"ids.npy": npyArr{"'|O'", "(6,)", make([]byte, 48)}.file()},
			atOpen: true,
			want:   "DIR/ids.npy: holds Python objects (dtype object), which only pickle can read; save it with .astype(str), or .astype(float) for numbers",
		},
		{
			name:   "sample IDs whose dtype claims strings of a billion characters",
			change: map[string][]byte{"ids.npy": npyArr{"'<U1000000000'", "(6,)", nil}.file()},
			atOpen: true,
			want:   "DIR/ids.npy: has dtype <U1000000000, strings longer than the 65536 bytes supported",
		},
		{
			name:   "fewer sample IDs than rows",
			change: map[string][]byte{"ids.npy": npyArr{"'<i8'", "(5,)", make([]byte, 40)}.file()},
			atOpen: true,
			want:   "DIR/ids.npy: has 5 sample IDs, but DIR/items.npy has 6 rows",
		},
		{
			name:   "targets in CSC format",
			change: map[string][]byte{"targets.npz": fixtureBytes(t, "targets_csc.npz")},
			atOpen: true,
			want:   "DIR/targets.npz: holds a sparse matrix in csc format; only CSR is supported, so save targets.tocsr()",
		},
		{
			name:   "targets in COO format",
			change: map[string][]byte{"targets.npz": fixtureBytes(t, "targets_coo.npz")},
			atOpen: true,
			want:   "DIR/targets.npz: holds a sparse matrix in coo format; only CSR is supported, so save targets.tocsr()",
		},
		{
			name:   "targets not a zip archive",
			change: map[string][]byte{"targets.npz": []byte("sample_id,item\n")},
			atOpen: true,
			want:   "DIR/targets.npz: not an .npz file of scipy.sparse.save_npz: zip: not a valid zip file",
		},
		{
			name:   "targets without indptr",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Member{Name: "indptr"})},
			atOpen: true,
			want:   `DIR/targets.npz: has no array "indptr"; save the targets with scipy.sparse.save_npz`,
		},
		{
			name:   "targets without format",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Member{Name: "format"})},
			atOpen: true,
			want:   `DIR/targets.npz: has no array "format"; save the targets with scipy.sparse.save_npz`,
		},
		{
			name:   "format not a string",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("format", npyArr{"'<i8'", "()", inputtest.Int64s(1)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: array "format": has dtype int64 and shape (); scipy.sparse.save_npz writes one string`,
		},
		{
			name:   "shape of one dimension",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("shape", npyArr{"'<i8'", "(1,)", inputtest.Int64s(6)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: array "shape": has dtype int64 and shape (1,); it must hold the matrix's two dimensions`,
		},
		{
			name:   "targets of fewer rows",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("shape", npyArr{"'<i8'", "(2,)", inputtest.Int64s(5, 10)}.file()))},
			atOpen: true,
			want:   "DIR/targets.npz: has 5 rows, but DIR/items.npy has 6",
		},
		{
			name:   "negative dimensions",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("shape", npyArr{"'<i8'", "(2,)", inputtest.Int64s(6, -1)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: array "shape": holds the negative dimensions (6, -1)`,
		},
		{
			name:   "too many columns",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("shape", npyArr{"'<i8'", "(2,)", inputtest.Int64s(6, 1<<31)}.file()))},
			atOpen: true,
			want:   "DIR/targets.npz: has 2147483648 columns; at most 2147483647 are supported",
		},
		{
			name:   "indptr of floats",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("indptr", npyArr{"'<f8'", "(7,)", make([]byte, 56)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: array "indptr": has dtype float64 and shape (7,); it must be a 1-D array of integers`,
		},
		{
			name:   "data of strings",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("data", npyArr{"'|S1'", "(10,)", make([]byte, 10)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: array "data": has dtype |S1 and shape (10,); it must be a 1-D array of numbers or booleans`,
		},
		{
			name:   "indptr too short",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("indptr", npyArr{"'<i8'", "(6,)", inputtest.Int64s(0, 2, 2, 5, 8, 9)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: array "indptr": has 6 values; a matrix of 6 rows needs 7`,
		},
		{
			name:   "indices and data of different lengths",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("data", npyArr{"'<f4'", "(9,)", make([]byte, 36)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: arrays "indices" and "data" differ in length: 10 and 9`,
		},
		{
			name:   "indptr not starting at 0",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("indptr", npyArr{"'<i8'", "(7,)", inputtest.Int64s(1, 2, 2, 5, 8, 9, 10)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: array "indptr": starts at 1 instead of 0`,
		},

		// The rows, checked by Next.
		{
			name:   "item above the columns",
			change: map[string][]byte{"items.npy": itemsWith(2, 3, 10)},
			want:   `DIR/items.npy: row 2 (sample "u2"): item 10 at rank 3 is outside the targets' 10 columns`,
		},
		{
			name:   "negative item",
			change: map[string][]byte{"items.npy": itemsWith(0, 1, -1)},
			want:   `DIR/items.npy: row 0 (sample "u0"): item -1 at rank 1 is outside the targets' 10 columns`,
		},
		{
			name: "int64 item beyond int32",
			change: map[string][]byte{"items.npy": npyArr{"'<i8'", "(6, 4)", inputtest.Int64s(
				3, 1, 4, 0, 2, 5, 7, 9, 0, 6, 8, 2, 9, 8, 7, 6, 5, 4, 1<<32+3, 2, 1, 2, 3, 4)}.file()},
			want: `DIR/items.npy: row 4 (sample "u4"): item 4294967299 at rank 3 is outside the targets' 10 columns`,
		},
		{
			name: "big-endian uint16 item above the columns",
			change: map[string][]byte{"items.npy": npyArr{"'>u2'", "(6, 4)", []byte{
				0, 3, 0, 1, 0, 4, 0, 0, 0, 2, 0, 5, 0, 7, 0, 9, 0, 0, 0, 6, 0, 8, 0, 2,
				0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 2, 0, 3, 1, 0}}.file()},
			want: `DIR/items.npy: row 5 (sample "u5"): item 256 at rank 4 is outside the targets' 10 columns`,
		},
		{
			name:   "item twice in a row",
			change: map[string][]byte{"items.npy": itemsWith(3, 4, 8)},
			want:   `DIR/items.npy: row 3 (sample "u3"): item 8 appears twice, at rank 2 and rank 4`,
		},
		{
			name:   "a relevant item twice in a row",
			change: map[string][]byte{"items.npy": itemsWith(0, 4, 1)},
			want:   `DIR/items.npy: row 0 (sample "u0"): item 1 appears twice, at rank 2 and rank 4`,
		},
		{
			name:   "NaN score",
			change: map[string][]byte{"scores.npy": scoresWith(1, 2, float32(math.NaN()))},
			want:   `DIR/scores.npy: row 1 (sample "u1"): the score at rank 2 is NaN; scores must be finite`,
		},
		{
			name:   "+Inf score",
			change: map[string][]byte{"scores.npy": scoresWith(0, 1, float32(math.Inf(1)))},
			want:   `DIR/scores.npy: row 0 (sample "u0"): the score at rank 1 is +Inf; scores must be finite`,
		},
		{
			name:   "-Inf score",
			change: map[string][]byte{"scores.npy": scoresWith(5, 4, float32(math.Inf(-1)))},
			want:   `DIR/scores.npy: row 5 (sample "u5"): the score at rank 4 is -Inf; scores must be finite`,
		},
		{
			name:   "scores not descending",
			change: map[string][]byte{"scores.npy": scoresWith(2, 3, 0.75)},
			want:   `DIR/scores.npy: row 2 (sample "u2"): the scores are not in descending order: rank 2 has 0.5, rank 3 has 0.75`,
		},
		{
			name: "float64 scores not descending",
			change: map[string][]byte{"scores.npy": npyArr{"'<f8'", "(6, 4)", inputtest.Float64s(
				0.9, 0.8, 0.8, 0.1, 4, 3, 2, 1, 1, 0.5, 0.25, 0, -1, -2, -3, -4, 0.5, 0.5, 0.5, 0.5, 3, 2, 1, 1.1)}.file()},
			want: `DIR/scores.npy: row 5 (sample "u5"): the scores are not in descending order: rank 3 has 1, rank 4 has 1.1`,
		},
		{
			name:   "target column above the columns",
			change: map[string][]byte{"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 12, 2))},
			want:   `DIR/targets.npz: row 4 (sample "u4"): column 12 is outside the matrix's 10 columns`,
		},
		{
			name:   "negative target column",
			change: map[string][]byte{"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(-1, 4, 8, 2, 3, 6, 1, 6, 5, 2))},
			want:   `DIR/targets.npz: row 0 (sample "u0"): column -1 is outside the matrix's 10 columns`,
		},
		{
			name:   "indptr decreasing",
			change: map[string][]byte{"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 3, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2))},
			want:   `DIR/targets.npz: row 3 (sample "u3"): array "indptr" decreases from 5 to 3`,
		},
		{
			name:   "indptr past the values",
			change: map[string][]byte{"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 11, 11), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2))},
			want:   `DIR/targets.npz: row 4 (sample "u4"): array "indptr" points to 11, past the 10 stored values`,
		},
		{
			name:   "indptr ending early",
			change: map[string][]byte{"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 9, 9), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2))},
			want:   `DIR/targets.npz: array "indptr": ends at 9, but the matrix stores 10 values`,
		},
		{
			name:   "items truncated",
			change: map[string][]byte{"items.npy": numpyFiles()["items.npy"][:128+88]},
			atOpen: true,
			want:   `DIR/items.npy: is truncated: it holds 88 bytes of data, less than the 96 of its shape (6, 4)`,
		},
		{
			name:   "items of an impossible shape",
			change: map[string][]byte{"items.npy": npyArr{"'<i4'", "(4611686018427387904, 4)", nil}.file()},
			atOpen: true,
			want:   `DIR/items.npy: has shape (4611686018427387904, 4), too large to be real; the header is corrupt`,
		},
		{
			name: "indices claiming more values than the member holds",
			change: map[string][]byte{"targets.npz": withMember(inputtest.Array("indices", npyArr{"'<i4'", "(1000000000,)",
				inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2)}.file()))},
			atOpen: true,
			want:   `DIR/targets.npz: arrays "indices" and "data" differ in length: 1000000000 and 10`,
		},
		{
			name: "indices and data claiming more values than their members hold",
			change: map[string][]byte{"targets.npz": inputtest.Zip(zip.Deflate, replaceMember(replaceMember(
				csrNPZ(6, 10, inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2), numpyData),
				inputtest.Array("indices", npyArr{"'<i4'", "(1000000000,)", inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2)}.file())),
				inputtest.Array("data", npyArr{"'<f4'", "(1000000000,)", numpyData}.file()))...)},
			atOpen: true,
			want:   `DIR/targets.npz: array "indices": is truncated: it holds 40 bytes of data, less than the 4000000000 of its shape (1000000000,)`,
		},
		{
			name:   "indptr truncated in a compressed member",
			change: map[string][]byte{"targets.npz": inputtest.Zip(zip.Deflate, replaceMember(csrNPZ(6, 10, inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2), numpyData), inputtest.Array("indptr", npyArr{"'<i8'", "(7,)", inputtest.Int64s(0, 2, 2, 5, 8, 9)}.file()))...)},
			atOpen: true,
			want:   `DIR/targets.npz: array "indptr": is truncated: it holds 48 bytes of data, less than the 56 of its shape (7,)`,
		},
		{
			name:   "items longer than their shape",
			change: map[string][]byte{"items.npy": append(numpyFiles()["items.npy"], 0, 0, 0, 0)},
			want:   `DIR/items.npy: holds more data than its shape (6, 4) says`,
		},
		{
			name:   "sample IDs truncated",
			change: map[string][]byte{"ids.npy": numpyFiles()["ids.npy"][:128+32]},
			atOpen: true,
			want:   `DIR/ids.npy: is truncated: it holds 32 bytes of data, less than the 48 of its shape (6,)`,
		},
		{
			name: "the first bad row wins, whichever file it is in",
			change: map[string][]byte{
				"items.npy":   itemsWith(3, 4, 8),
				"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 12, 2)),
			},
			want: `DIR/items.npy: row 3 (sample "u3"): item 8 appears twice, at rank 2 and rank 4`,
		},
		{
			name: "without validation, target columns are still checked",
			change: map[string][]byte{
				"items.npy":   itemsWith(0, 1, 99),
				"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 12, 2)),
			},
			opts: evaluate.RankingOptions{SkipValidation: true},
			want: `DIR/targets.npz: row 4 (sample "u4"): column 12 is outside the matrix's 10 columns`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := numpyFiles()
			for name, b := range tt.change {
				files[name] = b
			}
			dir := writeFiles(t, files)
			r, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), filepath.Join(dir, "scores.npy"),
				filepath.Join(dir, "targets.npz"), filepath.Join(dir, "ids.npy"), tt.opts)
			if tt.atOpen {
				require.Equal(t, tt.want, badInput(t, dir, err))
				return
			}
			require.NoError(t, err)
			defer r.Close()
			_, _, err = readRankings(t, r)
			require.Equal(t, tt.want, badInput(t, dir, err))
		})
	}
}

func TestNumPyRankingsVariants(t *testing.T) {
	t.Parallel()
	const (
		indptr  = "indptr"
		indices = "indices"
	)
	tests := []struct {
		name   string
		change map[string][]byte
		opts   evaluate.RankingOptions
		want   []rankedRow
	}{
		{
			name: "without validation: an item outside the columns is no hit, a repeated one counts twice",
			change: map[string][]byte{"items.npy": npyArr{"'<i4'", "(6, 4)", inputtest.Int32s(
				1, 1, 4, 99, 2, 5, 7, 9, 0, 6, 8, 2, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4)}.file()},
			opts: evaluate.RankingOptions{SkipValidation: true},
			want: []rankedRow{
				{"u0", "xxx.", 2}, {"u1", "....", 0}, {"u2", "..xx", 2},
				{"u3", "...x", 2}, {"u4", "x...", 1}, {"u5", "....", 0},
			},
		},
		{
			name: "only the first Width positions are validated",
			change: map[string][]byte{"items.npy": npyArr{"'<i4'", "(6, 4)", inputtest.Int32s(
				3, 1, 3, 99, 2, 5, 7, 9, 0, 6, 8, 2, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4)}.file()},
			opts: evaluate.RankingOptions{Width: 2},
			want: []rankedRow{
				{"u0", ".x", 2}, {"u1", "..", 0}, {"u2", "..", 2},
				{"u3", "..", 2}, {"u4", "x.", 1}, {"u5", "..", 0},
			},
		},
		{
			name: "boolean data, int32 indptr, int64 indices, bytes IDs",
			change: map[string][]byte{
				"targets.npz": inputtest.Zip(zip.Deflate,
					inputtest.Array(indices, npyArr{"'<i8'", "(10,)", inputtest.Int64s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2)}.file()),
					inputtest.Array(indptr, npyArr{"'<i4'", "(7,)", inputtest.Int32s(0, 2, 2, 5, 8, 9, 10)}.file()),
					inputtest.Array("format", npyArr{"'<U3'", "()", inputtest.Strings(3, "csr")}.file()),
					inputtest.Array("shape", npyArr{"'<i8'", "(2,)", inputtest.Int64s(6, 10)}.file()),
					inputtest.Array("data", npyArr{"'|b1'", "(10,)", []byte{1, 1, 1, 1, 0, 1, 1, 1, 1, 0}}.file()),
				),
				"ids.npy": npyArr{"'|S2'", "(6,)", []byte("a\x00b\x00c\x00d\x00e\x00ff")}.file(),
			},
			want: []rankedRow{
				{"a", ".xx.", 2}, {"b", "....", 0}, {"c", "..xx", 2},
				{"d", "...x", 2}, {"e", "x...", 1}, {"ff", "....", 0},
			},
		},
		{
			name: "integer data with explicit zeros, unsigned big-endian items",
			change: map[string][]byte{
				"targets.npz": inputtest.Zip(zip.Store,
					inputtest.Array(indices, npyArr{"'<i4'", "(10,)", inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2)}.file()),
					inputtest.Array(indptr, npyArr{"'<i8'", "(7,)", inputtest.Int64s(0, 2, 2, 5, 8, 9, 10)}.file()),
					inputtest.Array("format", npyArr{"'|S3'", "()", []byte("csr")}.file()),
					inputtest.Array("shape", npyArr{"'<i8'", "(2,)", inputtest.Int64s(6, 10)}.file()),
					inputtest.Array("data", npyArr{"'<i2'", "(10,)", []byte{1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0}}.file()),
				),
				"items.npy": npyArr{"'>u4'", "(6, 4)", inputtest.BigEndian32s(3, 1, 4, 0, 2, 5, 7, 9, 0, 6, 8, 2, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4)}.file(),
			},
			want: []rankedRow{
				{"u0", ".x..", 1}, {"u1", "....", 0}, {"u2", "..xx", 2},
				{"u3", "...x", 2}, {"u4", "x...", 1}, {"u5", "....", 0},
			},
		},
		{
			name: "no rows",
			change: map[string][]byte{
				"items.npy":   npyArr{"'<i4'", "(0, 4)", nil}.file(),
				"scores.npy":  npyArr{"'<f4'", "(0, 4)", nil}.file(),
				"ids.npy":     npyArr{"'<U2'", "(0,)", nil}.file(),
				"targets.npz": inputtest.Zip(zip.Store, csrNPZ(0, 10, inputtest.Int64s(0), nil, nil)...),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := numpyFiles()
			for name, b := range tt.change {
				files[name] = b
			}
			dir := writeFiles(t, files)
			r, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), filepath.Join(dir, "scores.npy"),
				filepath.Join(dir, "targets.npz"), filepath.Join(dir, "ids.npy"), tt.opts)
			require.NoError(t, err)
			defer r.Close()
			rows, _, err := readRankings(t, r)
			require.NoError(t, err)
			require.Equal(t, tt.want, rows)
		})
	}
}

func TestNumPyRankingsMany(t *testing.T) {
	t.Parallel()
	// Row i predicts items i%7, i%7+7, i%7+14 and has targets i%7+7 and
	// 30, so each row has one hit at rank 2; every tenth row has no targets.
	const n, cols = 10_000, 31
	var items, indices []int32
	indptr := []int64{0}
	want := make([]rankedRow, n)
	for i := range n {
		items = append(items, int32(i%7), int32(i%7+7), int32(i%7+14))
		want[i] = rankedRow{ID: fmt.Sprint(i), Hits: "...", R: 0}
		if i%10 != 0 {
			indices = append(indices, int32(i%7+7), 30)
			want[i] = rankedRow{ID: fmt.Sprint(i), Hits: ".x.", R: 2}
		}
		indptr = append(indptr, int64(len(indices)))
	}
	ones := make([]float32, len(indices))
	for i := range ones {
		ones[i] = 1
	}
	dir := writeFiles(t, map[string][]byte{
		"items.npy":   npyArr{"'<i4'", fmt.Sprintf("(%d, 3)", n), inputtest.Int32s(items...)}.file(),
		"targets.npz": inputtest.Zip(zip.Deflate, csrNPZ(n, cols, inputtest.Int64s(indptr...), inputtest.Int32s(indices...), inputtest.Float32s(ones...))...),
	})
	r, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", filepath.Join(dir, "targets.npz"), "", evaluate.RankingOptions{})
	require.NoError(t, err)
	defer r.Close()
	done, total := r.Progress()
	require.Less(t, done, total/2, "after opening")
	rows, firsts, err := readRankings(t, r)
	require.NoError(t, err)
	require.Equal(t, want, rows)
	require.Equal(t, []int64{0, 4096, 8192}, firsts)
	done, total = r.Progress()
	require.Equal(t, total, done)
	require.Equal(t, uint64(n-n/10), r.Targets().Len())
}

// goroutineLabel is the profiler label key that marks the goroutines a
// test starts, directly or through the goroutines they start, so that the
// test can count its own among those of the tests running beside it.
const goroutineLabel = "verdict-test"

// labelledGoroutines returns how many live goroutines carry the profiler
// label goroutineLabel = value, from the goroutine profile, whose text form
// heads each group of identical stacks with its count and lists the group's
// labels as `# labels: {"key":"value", …}`.
func labelledGoroutines(t *testing.T, value string) int {
	t.Helper()
	var b strings.Builder
	require.NoError(t, pprof.Lookup("goroutine").WriteTo(&b, 1))
	mark := fmt.Sprintf("%q:%q", goroutineLabel, value)
	n := 0
	for _, group := range strings.Split(b.String(), "\n\n") {
		var count int
		if _, err := fmt.Sscanf(group, "%d @", &count); err != nil {
			continue // the profile's header line
		}
		for line := range strings.Lines(group) {
			if strings.HasPrefix(line, "# labels: ") && strings.Contains(line, mark) {
				n += count
			}
		}
	}
	return n
}

// goroutineExitWait bounds the wait for goroutines that were told to stop
// to return. Close waits until each has signalled that it is done, so they
// are gone microseconds later; a goroutine still there after this long has
// leaked.
const goroutineExitWait = 10 * time.Second

// TestNumPyRankingsClose closes rankings before reading and after one of
// their six batches, while the goroutines that read ahead are blocked on
// full buffers: Close returns no error and leaves none of the goroutines
// that reading started.
func TestNumPyRankingsClose(t *testing.T) {
	t.Parallel()
	dir := copyFixtures(t, "items.npy", "scores.npy", "targets.npz")
	for _, tt := range []struct {
		name  string
		reads int
	}{
		{name: "before reading", reads: 0},
		{name: "after the first batch", reads: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r *evaluate.NumPyRankings
			pprof.Do(t.Context(), pprof.Labels(goroutineLabel, t.Name()), func(context.Context) {
				var err error
				r, err = evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), filepath.Join(dir, "scores.npy"),
					filepath.Join(dir, "targets.npz"), "", evaluate.RankingOptions{BatchSize: 1})
				require.NoError(t, err)
				for range tt.reads {
					_, err := r.Next()
					require.NoError(t, err)
				}
			})
			if tt.reads > 0 {
				require.Positive(t, labelledGoroutines(t, t.Name()), "reading started goroutines, which the count sees")
			}
			require.NoError(t, r.Close())
			deadline := time.Now().Add(goroutineExitWait)
			for labelledGoroutines(t, t.Name()) > 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			require.Zero(t, labelledGoroutines(t, t.Name()), "goroutines left running %v after Close", goroutineExitWait)
		})
	}
}

func TestNumPyRankingsNextAfterClose(t *testing.T) {
	t.Parallel()
	dir := copyFixtures(t, "items.npy", "targets.npz")
	r, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", filepath.Join(dir, "targets.npz"), "", evaluate.RankingOptions{})
	require.NoError(t, err)
	require.NoError(t, r.Close())
	_, err = r.Next()
	require.EqualError(t, err, "evaluate: rankings closed")
}

package scores_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"codeberg.org/sbinet/npyio/npy"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

// npyioArray writes v with npyio, an independent .npy writer.
func npyioArray(t testing.TB, name string, v any) inputtest.Member {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, npy.Write(&buf, v))
	return inputtest.Member{Name: name, Data: buf.Bytes()}
}

// fixture copies a committed fixture from testdata, written by
// testdata/gen_npz.py with NumPy, to a temporary directory.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return inputtest.WriteFile(t, name, b)
}

func TestNPZWide(t *testing.T) {
	t.Parallel()
	const n = 20_000 // several read batches
	ids := make([]string, n)
	values := make([]float64, n)
	var manyWant []wideRow
	for i := range n {
		ids[i] = fmt.Sprintf("u%05d", i)
		values[i] = float64(i) / 4
		manyWant = append(manyWant, wideRow{ID: ids[i], Values: []float64{values[i], float64(i % 3)}, Where: fmt.Sprintf("scores.npz: row %d", i+1)})
	}
	hits := make([]int32, n)
	for i := range hits {
		hits[i] = int32(i % 3)
	}
	tests := []struct {
		name  string
		write func(t *testing.T) string
		want  wideFile
	}{
		{
			name:  "np.savez: unicode IDs, float64, float32 and int64 metrics",
			write: func(t *testing.T) string { return fixture(t, "wide.npz") },
			want: wideFile{Metrics: []string{"ndcg@10", "recall@10", "hits@10"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{0.5, 1, 3}, Where: "wide.npz: row 1"},
				{ID: "u2", Values: []float64{0.25, 0.5, 0}, Where: "wide.npz: row 2"},
				{ID: "ü3", Values: []float64{0, 0.125, 1}, Where: "wide.npz: row 3"},
			}},
		},
		{
			name:  "np.savez_compressed: integer IDs, draw, big-endian floats",
			write: func(t *testing.T) string { return fixture(t, "wide_draw_compressed.npz") },
			want: wideFile{Metrics: []string{"ndcg@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "7", Draw: 0, Values: []float64{0.5}, Where: "wide_draw_compressed.npz: row 1"},
				{ID: "7", Draw: 1, Values: []float64{0.75}, Where: "wide_draw_compressed.npz: row 2"},
				{ID: "8", Draw: 0, Values: []float64{1}, Where: "wide_draw_compressed.npz: row 3"},
			}},
		},
		{
			name: "many rows, stored",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store,
					inputtest.Array("sample_id", inputtest.NPY(1, "'<U6'", fmt.Sprintf("(%d,)", n), inputtest.Strings(6, ids...))),
					npyioArray(t, "ndcg@10", values),
					npyioArray(t, "hits@10", hits))
			},
			want: wideFile{Metrics: []string{"ndcg@10", "hits@10"}, Rows: manyWant},
		},
		{
			name: "many rows, deflated",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Deflate,
					inputtest.Array("sample_id", inputtest.NPY(1, "'<U6'", fmt.Sprintf("(%d,)", n), inputtest.Strings(6, ids...))),
					npyioArray(t, "ndcg@10", values),
					npyioArray(t, "hits@10", hits))
			},
			want: wideFile{Metrics: []string{"ndcg@10", "hits@10"}, Rows: manyWant},
		},
		{
			name: "format version 2, bytes IDs with padding, unsigned and small integers, Python 2 shape",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Deflate,
					inputtest.Array("sample_id", inputtest.NPY(2, "'|S3'", "(2L,)", []byte("ab\x00xyz"))),
					inputtest.Array("draw", inputtest.NPY(2, "'>u2'", "(2,)", []byte{0, 1, 0x7f, 0xff})),
					inputtest.Array("a", inputtest.NPY(2, "'|i1'", "(2,)", []byte{0xff, 0x7f})),
					inputtest.Array("b", inputtest.NPY(2, "'>f4'", "(2,)", []byte{0x3f, 0x00, 0x00, 0x00, 0xbf, 0x80, 0x00, 0x00})),
					inputtest.Array("c", inputtest.NPY(2, "'<u8'", "(2,)", binary.LittleEndian.AppendUint64(make([]byte, 8), math.MaxUint64))))
			},
			want: wideFile{Metrics: []string{"a", "b", "c"}, HasDraw: true, Rows: []wideRow{
				{ID: "ab", Draw: 1, Values: []float64{-1, 0.5, 0}, Where: "scores.npz: row 1"},
				{ID: "xyz", Draw: 32767, Values: []float64{127, -1, math.MaxUint64}, Where: "scores.npz: row 2"},
			}},
		},
		{
			name: "empty arrays",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store,
					inputtest.Array("sample_id", inputtest.NPY(1, "'<U1'", "(0,)", nil)),
					inputtest.Array("a", inputtest.NPY(1, "'<f8'", "(0,)", nil)))
			},
			want: wideFile{Metrics: []string{"a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.write(t)
			got, err := readWide(t, path, "")
			require.NoError(t, err)
			requireWide(t, tt.want.in(path), got)
		})
	}
}

func TestNPZLong(t *testing.T) {
	t.Parallel()
	path := fixture(t, "long.npz")
	want := longFile{HasDraw: true, Rows: []longRow{
		{ID: "u1", Draw: 0, Metric: "ndcg@10", Value: 0.5, Where: inDir(path, "long.npz: row 1")},
		{ID: "u1", Draw: 0, Metric: "recall@10", Value: 1, Where: inDir(path, "long.npz: row 2")},
		{ID: "u2", Draw: 3, Metric: "ndcg@10", Value: 0.25, Where: inDir(path, "long.npz: row 3")},
	}}
	got, err := readLong(t, path, "")
	require.NoError(t, err)
	requireLong(t, want, got)
}

func TestNPZBad(t *testing.T) {
	t.Parallel()
	ids := inputtest.Array("sample_id", inputtest.NPY(1, "'<U2'", "(2,)", inputtest.Strings(2, "u1", "u2")))
	ndcg := inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, 0.25)))
	tests := []struct {
		name    string
		write   func(t *testing.T) string
		wantErr string // after the file's directory
	}{
		{
			name:    "sample IDs as Python objects",
			write:   func(t *testing.T) string { return fixture(t, "object_ids.npz") },
			wantErr: `object_ids.npz: array "sample_id": holds Python objects (dtype object), which only pickle can read; save it with .astype(str), or .astype(float) for numbers`,
		},
		{
			name:    "a 2-D array",
			write:   func(t *testing.T) string { return fixture(t, "matrix.npz") },
			wantErr: `matrix.npz: array "scores": has shape (2, 2); only 1-D arrays are supported, so save one array per metric`,
		},
		{
			name:    "arrays of different lengths",
			write:   func(t *testing.T) string { return fixture(t, "ragged.npz") },
			wantErr: `ragged.npz: arrays differ in length: "sample_id" has 3 values, "ndcg@10" has 2`,
		},
		{
			name:    "positional arrays",
			write:   func(t *testing.T) string { return fixture(t, "positional.npz") },
			wantErr: `positional.npz: no "sample_id" array among "arr_0", "arr_1"; save the arrays by name, as np.savez(path, sample_id=ids, **metrics)`,
		},
		{
			name: "not a zip file",
			write: func(t *testing.T) string {
				return inputtest.WriteFile(t, "scores.npz", inputtest.NPY(1, "'<f8'", "(1,)", inputtest.Float64s(1)))
			},
			wantErr: `scores.npz: not a NumPy .npz file: zip: not a valid zip file`,
		},
		{
			name:    "an empty archive",
			write:   func(t *testing.T) string { return inputtest.WriteNPZ(t, "scores.npz", zip.Store) },
			wantErr: `scores.npz: the archive holds no arrays`,
		},
		{
			name: "a member that is not .npy",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("notes.txt", []byte("hello")))
			},
			wantErr: `scores.npz: member "notes.txt" is not a .npy array`,
		},
		{
			name: "a member without the magic string",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", []byte("0.5,0.25\n")))
			},
			wantErr: `scores.npz: array "ndcg@10": not a .npy array: it does not start with the NumPy magic string`,
		},
		{
			name: "a member too short for a header",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", []byte("\x93NU")))
			},
			wantErr: `scores.npz: array "ndcg@10": not a .npy array: the member is too short`,
		},
		{
			name: "a truncated header",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f8'", "(2,)", nil)[:20]))
			},
			wantErr: `scores.npz: array "ndcg@10": the .npy header is truncated`,
		},
		{
			name: "an unknown format version",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", []byte("\x93NUMPY\x04\x00\x00\x00")))
			},
			wantErr: `scores.npz: array "ndcg@10": .npy format version 4.0 is not supported`,
		},
		{
			name: "an unreadable header",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f8'", "[2]", nil)))
			},
			wantErr: `scores.npz: array "ndcg@10": the .npy header has no shape`,
		},
		{
			name: "a header that is no dict",
			write: func(t *testing.T) string {
				b := inputtest.NPY(1, "'<f8'", "(2,)", nil)
				b[10] = '('
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", b))
			},
			wantErr: `scores.npz: array "ndcg@10": unreadable .npy header "('descr': '<f8', 'fortran_order': False, 'shape': (2,), }": expected '{'`,
		},
		{
			name: "a structured array",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "[('a', '<f8'), ('b', '<i4')]", "(2,)", nil)))
			},
			wantErr: `scores.npz: array "ndcg@10": is a structured array (a record dtype); save each field as its own array`,
		},
		{
			name: "booleans",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("hit@10", inputtest.NPY(1, "'|b1'", "(2,)", []byte{1, 0})))
			},
			wantErr: `scores.npz: array "hit@10": has dtype bool, which is not supported; save it with .astype(float)`,
		},
		{
			name: "float16",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f2'", "(2,)", make([]byte, 4))))
			},
			wantErr: `scores.npz: array "ndcg@10": has dtype float16, which is not supported; save it with .astype('float32')`,
		},
		{
			name: "complex numbers",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "'<c16'", "(2,)", make([]byte, 32))))
			},
			wantErr: `scores.npz: array "ndcg@10": has dtype <c16, which is not supported`,
		},
		{
			name: "strings as metric",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "'<U3'", "(2,)", inputtest.Strings(3, "0.5", "0.2"))))
			},
			wantErr: `scores.npz: array "ndcg@10": has dtype <U3; it must be floats or integers`,
		},
		{
			name: "float sample IDs",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, inputtest.Array("sample_id", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(1, 2))), ndcg)
			},
			wantErr: `scores.npz: array "sample_id": has dtype float64; it must be strings or integers`,
		},
		{
			name: "float draw",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("draw", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(1, 2))), ndcg)
			},
			wantErr: `scores.npz: array "draw": has dtype float64; it must be integers`,
		},
		{
			name: "a scalar",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("k", inputtest.NPY(1, "'<i8'", "()", make([]byte, 8))))
			},
			wantErr: `scores.npz: array "k": has shape (); only 1-D arrays are supported, so save one array per metric`,
		},
		{
			name: "duplicate arrays",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, ndcg, ndcg)
			},
			wantErr: `scores.npz: array "ndcg@10" appears twice (arrays 2 and 3)`,
		},
		{
			name: "draw out of range",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, ndcg, inputtest.Array("draw", inputtest.NPY(1, "'<i4'", "(2,)", []byte{0, 0, 0, 0, 0, 0x80, 0, 0})))
			},
			wantErr: `scores.npz: row 2 (sample "u2"), array "draw": draw 32768 is not a whole number from 0 to 32767`,
		},
		{
			name: "draw above the int64 range",
			write: func(t *testing.T) string {
				big := bytes.Repeat([]byte{0xff}, 16)
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, ndcg, inputtest.Array("draw", inputtest.NPY(1, "'<u8'", "(2,)", big)))
			},
			wantErr: `scores.npz: row 1 (sample "u1"), array "draw": draw above 2^63 is not a whole number from 0 to 32767`,
		},
		{
			name: "long form: empty metric name",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids,
					inputtest.Array("metric", inputtest.NPY(1, "'<U1'", "(2,)", inputtest.Strings(1, "a", ""))),
					inputtest.Array("value", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(1, 2))))
			},
			wantErr: `scores.npz: row 2 (sample "u2"), array "metric": metric name missing`,
		},
		{
			name: "data shorter than the shape",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Deflate, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5))))
			},
			wantErr: `scores.npz: array "ndcg@10": is truncated: it holds 8 bytes of data, less than the 16 of its shape (2,)`,
		},
		{
			name: "data longer than the shape",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "scores.npz", zip.Store, ids, inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, 0.25, 1))))
			},
			wantErr: `scores.npz: array "ndcg@10": holds more data than its shape (2,) says`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.write(t)
			err := readAll(t, path, "")
			require.EqualError(t, err, inDir(path, tt.wantErr))
			require.ErrorIs(t, err, scores.ErrBadInput)
		})
	}
}

func TestNPZChecksum(t *testing.T) {
	t.Parallel()
	path := inputtest.WriteNPZ(t, "scores.npz", zip.Store,
		inputtest.Array("sample_id", inputtest.NPY(1, "'<U2'", "(2,)", inputtest.Strings(2, "u1", "u2"))),
		inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, 0.25))))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	i := bytes.Index(b, inputtest.Float64s(0.25))
	require.Positive(t, i)
	copy(b[i:], inputtest.Float64s(0.75)) // the stored CRC no longer matches
	require.NoError(t, os.WriteFile(path, b, 0o644))
	err = readAll(t, path, "")
	require.EqualError(t, err, inDir(path, `scores.npz: array "ndcg@10": zip: checksum error`))
	require.ErrorIs(t, err, scores.ErrBadInput)
}

package input_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

var arr = input.Location{Path: "a.npz", Column: "x", ColumnNoun: "array"}

// readNPY reads the header of the .npy file b, whose size is known.
func readNPY(t *testing.T, b []byte) (*input.NPY, error) {
	t.Helper()
	return input.ReadNPY(bytes.NewReader(b), int64(len(b)), arr, errBad)
}

func TestReadNPY(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    []byte
		typ     input.NPYType
		dtype   string
		shape   string
		count   int64
		problem string
	}{
		{
			name: "little-endian float64", file: inputtest.NPY(1, "'<f8'", "(3,)", inputtest.Float64s(1, 2, 3)),
			typ: input.NPYType{Order: binary.LittleEndian, Kind: 'f', Size: 8}, dtype: "float64", shape: "(3,)", count: 3,
		},
		{
			name: "version 2, big-endian int16, 2-D", file: inputtest.NPY(2, "'>i2'", "(2, 3)", make([]byte, 12)),
			typ: input.NPYType{Order: binary.BigEndian, Kind: 'i', Size: 2}, dtype: "int16", shape: "(2, 3)", count: 6,
		},
		{
			name: "unicode strings: 4 bytes a character", file: inputtest.NPY(1, "'<U5'", "(1,)", inputtest.Strings(5, "abc")),
			typ: input.NPYType{Order: binary.LittleEndian, Kind: 'U', Size: 20}, dtype: "<U5", shape: "(1,)", count: 1,
		},
		{
			name: "a scalar, Python 2 shape", file: inputtest.NPY(1, "'|u1'", "()", []byte{7}),
			typ: input.NPYType{Order: binary.LittleEndian, Kind: 'u', Size: 1}, dtype: "uint8", shape: "()", count: 1,
		},
		{
			name: "bool", file: inputtest.NPY(1, "'|b1'", "(2,)", []byte{1, 0}),
			dtype: "bool", shape: "(2,)", count: 2,
			problem: "has dtype bool, which is not supported; save it with .astype(float)",
		},
		{
			name: "strings too long to allocate a batch of", file: inputtest.NPY(1, "'<U100000000'", "(1000000,)", nil),
			dtype: "<U100000000", shape: "(1000000,)", count: 1_000_000,
			problem: "has dtype <U100000000, strings longer than the 65536 bytes supported",
		},
		{
			name: "bytes too long", file: inputtest.NPY(1, "'|S65537'", "(1,)", nil),
			dtype: "|S65537", shape: "(1,)", count: 1,
			problem: "has dtype |S65537, strings longer than the 65536 bytes supported",
		},
		{
			name: "objects", file: inputtest.NPY(1, "'|O'", "(1,)", nil),
			dtype: "|O", shape: "(1,)", count: 1,
			problem: "holds Python objects (dtype object), which only pickle can read; save it with .astype(str), or .astype(float) for numbers",
		},
		{
			name: "a shape whose count overflows", file: inputtest.NPY(1, "'<f8'", "(4611686018427387904, 4)", nil),
			typ: input.NPYType{Order: binary.LittleEndian, Kind: 'f', Size: 8}, dtype: "float64", shape: "(4611686018427387904, 4)", count: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := readNPY(t, tt.file)
			require.NoError(t, err)
			require.Equal(t, tt.typ, a.Type)
			require.Equal(t, tt.dtype, a.DtypeName())
			require.Equal(t, tt.shape, a.ShapeText())
			require.Equal(t, tt.count, a.Count)
			require.Equal(t, tt.problem, a.Problem)
		})
	}
}

func TestReadNPYBad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{name: "too short", file: []byte("\x93NU"), want: "not a .npy array: the member is too short"},
		{name: "no magic", file: []byte("0.5,0.25\n"), want: "not a .npy array: it does not start with the NumPy magic string"},
		{name: "unknown version", file: []byte("\x93NUMPY\x04\x00\x00\x00"), want: ".npy format version 4.0 is not supported"},
		{name: "truncated header", file: inputtest.NPY(1, "'<f8'", "(2,)", nil)[:20], want: "the .npy header is truncated"},
		{name: "no shape", file: inputtest.NPY(1, "'<f8'", "[2]", nil), want: "the .npy header has no shape"},
		{
			name: "a header claiming a megabyte and more",
			file: binary.LittleEndian.AppendUint32([]byte("\x93NUMPY\x02\x00"), 1<<21),
			want: "the .npy header claims 2097152 bytes; it is corrupt",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := readNPY(t, tt.file)
			require.EqualError(t, err, `a.npz: array "x": `+tt.want)
			require.ErrorIs(t, err, errBad)
		})
	}
}

func TestNPYStream(t *testing.T) {
	t.Parallel()
	data := inputtest.Int32s(-1, 2, 3, 4, 5)
	a, err := readNPY(t, inputtest.NPY(1, "'<i4'", "(5,)", data))
	require.NoError(t, err)
	require.NoError(t, a.CheckData())
	raw, err := a.Next(2)
	require.NoError(t, err)
	require.Equal(t, []int64{-1, 2}, a.Type.Ints(nil, raw))
	raw, err = a.Next(3)
	require.NoError(t, err)
	require.Equal(t, []float64{3, 4, 5}, a.Type.Floats(nil, raw))
	require.NoError(t, a.Finish())
	require.Panics(t, func() { a.Next(1) }, "past the end of the shape")

	// Data shorter than the shape is found before reading, by its size.
	a, err = readNPY(t, inputtest.NPY(1, "'<i4'", "(6,)", data))
	require.NoError(t, err)
	require.EqualError(t, a.CheckData(), `a.npz: array "x": is truncated: it holds 20 bytes of data, less than the 24 of its shape (6,)`)
	// Without the size, when it is read.
	a, err = input.ReadNPY(bytes.NewReader(inputtest.NPY(1, "'<i4'", "(6,)", data)), -1, arr, errBad)
	require.NoError(t, err)
	require.NoError(t, a.CheckData())
	_, err = a.Next(6)
	require.EqualError(t, err, `a.npz: array "x": the array ends after 5 of its 6 values`)
	require.ErrorIs(t, err, errBad)
	// Longer than the shape.
	a, err = readNPY(t, inputtest.NPY(1, "'<i4'", "(4,)", data))
	require.NoError(t, err)
	_, err = a.Next(4)
	require.NoError(t, err)
	require.EqualError(t, a.Finish(), `a.npz: array "x": holds more data than its shape (4,) says`)
	// A shape too large to be real.
	a, err = readNPY(t, inputtest.NPY(1, "'<i4'", "(4611686018427387904, 4)", data))
	require.NoError(t, err)
	require.EqualError(t, a.CheckData(), `a.npz: array "x": has shape (4611686018427387904, 4), too large to be real; the header is corrupt`)
}

func TestNPYDecode(t *testing.T) {
	t.Parallel()
	le := binary.LittleEndian
	u8 := input.NPYType{Order: le, Kind: 'u', Size: 8}
	big := binary.LittleEndian.AppendUint64(inputtest.Int64s(42), math.MaxUint64)
	require.Equal(t, []int64{42, -1}, u8.Ints(nil, big), "above the int64 range: -1")
	require.Equal(t, "18446744073709551615", u8.IntText(big, 1))
	require.Equal(t, []float64{42, math.MaxUint64}, u8.Floats(nil, big))

	u4 := input.NPYType{Order: le, Kind: 'u', Size: 4}
	require.Equal(t, int64(math.MaxUint32), u4.Int([]byte{0xff, 0xff, 0xff, 0xff}, 0), "unsigned, not sign-extended")
	i1 := input.NPYType{Order: le, Kind: 'i', Size: 1}
	require.Equal(t, int64(-1), i1.Int([]byte{0xff}, 0))

	var ids input.IDs
	s3 := input.NPYType{Order: le, Kind: 'S', Size: 3}
	require.Equal(t, []string{"ab", "xyz"}, s3.AppendIDs(nil, []byte("ab\x00xyz"), &ids), "NUL padding dropped")
	u3 := input.NPYType{Order: le, Kind: 'U', Size: 12}
	require.Equal(t, []string{"ü5", "u"}, u3.AppendIDs(nil, inputtest.Strings(3, "ü5", "u"), &ids))
	i8 := input.NPYType{Order: le, Kind: 'i', Size: 8}
	require.Equal(t, []string{"-7", "100"}, i8.AppendIDs(nil, inputtest.Int64s(-7, 100), &ids), "integers as decimal text")

	names := input.Interner{}
	got := u3.AppendNames(nil, inputtest.Strings(3, "a", "a"), names)
	require.Equal(t, []string{"a", "a"}, got)
	require.Same(t, unsafeStringData(got[0]), unsafeStringData(got[1]), "one string per name")
}

func TestBatchRows(t *testing.T) {
	t.Parallel()
	require.Equal(t, 8192, input.BatchRows(8192, 8))
	require.Equal(t, 64, input.BatchRows(8192, input.MaxItemBytes), "a batch of the largest elements stays at 4 MiB")
	require.Equal(t, 1, input.BatchRows(8192, 1<<30))
	require.Equal(t, 10, input.BatchRows(10, 0))
}

// A .npy header may claim elements or a shape of any size; nothing is
// allocated by the claim. A dtype of huge elements is refused by ReadNPY
// (Problem), a shape whose size overflows or that the data does not hold
// by CheckData, and a member that holds less than its zip entry declares
// by Next, which allocates for the data there is, not for the data asked
// for. (A dtype '<U50000000' used to be feared to ask make for 1.6 TB.)
func TestNPYHugeItemRefused(t *testing.T) {
	tests := []struct {
		name    string
		dtype   string
		shape   string
		data    []byte
		size    int64 // of the member, as its zip entry declares it; 0: the real one
		next    int   // elements to read after CheckData
		problem string
		wantErr string
	}{
		{
			name: "unicode strings of 200 MB each", dtype: "'<U50000000'", shape: "(1000,)",
			problem: "has dtype <U50000000, strings longer than the 65536 bytes supported",
		},
		{
			name: "byte strings of 2 GB each", dtype: "'|S2000000000'", shape: "(1,)",
			problem: "has dtype |S2000000000, strings longer than the 65536 bytes supported",
		},
		{
			name: "an element size past any integer", dtype: "'<U99999999999999999999'", shape: "(1,)",
			problem: "has dtype <U99999999999999999999, which is not supported",
		},
		{
			name: "a shape whose count overflows", dtype: "'<f8'", shape: "(4611686018427387904, 4)",
			wantErr: "has shape (4611686018427387904, 4), too large to be real; the header is corrupt",
		},
		{
			name: "a shape whose bytes overflow", dtype: "'<f8'", shape: "(2305843009213693952,)",
			wantErr: "has shape (2305843009213693952,), too large to be real; the header is corrupt",
		},
		{
			name: "a shape the member does not hold", dtype: "'<U16384'", shape: "(1000000,)", data: inputtest.Strings(16384, "u1"),
			wantErr: "is truncated: it holds 65536 bytes of data, less than the 65536000000 of its shape (1000000,)",
		},
		{
			name: "a member that declares more than it holds", dtype: "'<f8'", shape: "(100000000,)", data: inputtest.Float64s(1, 2, 3),
			size: 800_000_128, next: 100_000_000,
			wantErr: "the array ends after 3 of its 100000000 values",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			alloc := inputtest.Allocated(func() {
				file := inputtest.NPY(1, tt.dtype, tt.shape, tt.data)
				size := tt.size
				if size == 0 {
					size = int64(len(file))
				}
				var a *input.NPY
				a, err = input.ReadNPY(bytes.NewReader(file), size, arr, errBad)
				require.NoError(t, err)
				require.Equal(t, tt.problem, a.Problem)
				if a.Problem != "" {
					return
				}
				if err = a.CheckData(); err == nil {
					_, err = a.Next(tt.next)
				}
			})
			require.Less(t, alloc, uint64(16<<20), "bytes allocated")
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, errBad)
			require.EqualError(t, err, `a.npz: array "x": `+tt.wantErr)
		})
	}
}

// TestNPYTruncatedHeaderRefused: a file that ends inside the header's
// length or the header itself is bad input, said so, not a bare EOF (found
// by FuzzNumPyRankings).
func TestNPYTruncatedHeaderRefused(t *testing.T) {
	for _, b := range []string{"\x93NUMPY\x010", "\x93NUMPY\x01\x00\x10", "\x93NUMPY\x02\x00\x10\x00", "\x93NUMPY\x01\x00\x10\x00{'descr'"} {
		_, err := input.ReadNPY(bytes.NewReader([]byte(b)), int64(len(b)), input.Location{Path: "items.npy"}, errBad)
		require.ErrorIs(t, err, errBad, "%q", b)
		require.EqualError(t, err, "items.npy: the .npy header is truncated", "%q", b)
	}
}

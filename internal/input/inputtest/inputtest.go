// Package inputtest writes the input files that the tests of verdict's
// readers read: any file, gzipped by its name; .npy arrays and .npz
// archives built byte by byte, so that a test can state every byte of a
// header; and Parquet files. It is for tests only.
package inputtest

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

// WriteFile writes content to name in a fresh temporary directory and
// returns its path. A name ending in .gz is gzipped.
func WriteFile(t testing.TB, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if filepath.Ext(name) == ".gz" {
		content = Gzip(t, content)
	}
	require.NoError(t, os.WriteFile(path, content, 0o644))
	return path
}

// Gzip compresses content.
func Gzip(t testing.TB, content []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(content)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// GzipBomb writes to name, in a fresh temporary directory, a gzip stream
// that expands to prefix, then n MiB of fill repeated, then suffix, and
// returns its path. The stream is one member per MiB, all alike (gzip
// readers read concatenated members as one stream), so that even
// gigabytes of text cost the test a kilobyte or so per MiB to write.
func GzipBomb(t testing.TB, name string, prefix []byte, fill string, n int, suffix []byte) string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), name))
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Write(Gzip(t, prefix))
	require.NoError(t, err)
	mib := Gzip(t, []byte(strings.Repeat(fill, (1<<20)/len(fill))))
	for range n {
		_, err = f.Write(mib)
		require.NoError(t, err)
	}
	_, err = f.Write(Gzip(t, suffix))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return f.Name()
}

// Allocated runs f and returns the bytes of heap it allocated, freed or
// not (runtime.MemStats.TotalAlloc), which bounds the heap's growth while
// f ran. Other goroutines' allocations count too, so a test that measures
// runs on its own (without t.Parallel). It collects garbage twice first,
// which empties every sync.Pool: parquet-go pools its page buffers, and f
// would otherwise reuse a buffer that an earlier test allocated rather
// than allocate its own.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// NPY builds a .npy file by hand: format version major, the dtype descr and
// the shape as Python writes them (such as "'<f8'" and "(3,)"), and the raw
// data.
func NPY(major byte, descr, shape string, data []byte) []byte {
	dict := fmt.Sprintf("{'descr': %s, 'fortran_order': False, 'shape': %s, }", descr, shape)
	prefix := 10
	if major > 1 {
		prefix = 12
	}
	pad := 64 - (prefix+len(dict)+1)%64
	dict += strings.Repeat(" ", pad) + "\n"
	b := append([]byte("\x93NUMPY"), major, 0)
	if major > 1 {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	}
	return append(append(b, dict...), data...)
}

// Fortran returns the .npy file npy, as NPY writes it, with its header
// saying that the data is in Fortran (column-major) order.
func Fortran(npy []byte) []byte {
	return bytes.Replace(npy, []byte("'fortran_order': False"), []byte("'fortran_order': True "), 1)
}

// Member is one array of an .npz archive.
type Member struct {
	Name string // without .npy, which Zip adds unless the name has a dot
	Data []byte // the whole .npy file
	// Declare, when not 0, is the size the member's zip entry declares,
	// a lie: Zip stores the member as it is, with that size.
	Declare uint64
}

// Array is the member name holding the .npy file npy.
func Array(name string, npy []byte) Member { return Member{Name: name, Data: npy} }

// Zip builds a zip archive of the members, each stored or deflated.
func Zip(method uint16, members ...Member) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		name := m.Name
		if !strings.Contains(name, ".") {
			name += ".npy"
		}
		var (
			w   io.Writer
			err error
		)
		if m.Declare != 0 {
			w, err = zw.CreateRaw(&zip.FileHeader{
				Name: name, Method: zip.Store, CRC32: crc32.ChecksumIEEE(m.Data),
				CompressedSize64: uint64(len(m.Data)), UncompressedSize64: m.Declare,
			})
		} else {
			w, err = zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		}
		if err == nil {
			_, err = w.Write(m.Data)
		}
		if err != nil {
			panic(err) // writing to memory
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// WriteNPZ writes the members to name in a fresh temporary directory and
// returns its path.
func WriteNPZ(t testing.TB, name string, method uint16, members ...Member) string {
	t.Helper()
	return WriteFile(t, name, Zip(method, members...))
}

// Float64s encodes little-endian float64s.
func Float64s(vs ...float64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// Float32s encodes little-endian float32s.
func Float32s(vs ...float32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// Int32s encodes little-endian int32s.
func Int32s(vs ...int32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// Int64s encodes little-endian int64s.
func Int64s(vs ...int64) []byte {
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// BigEndian32s encodes big-endian uint32s, as NumPy's '>u4'.
func BigEndian32s(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

// Strings encodes NumPy '<U' strings of width characters.
func Strings(width int, ss ...string) []byte {
	var b []byte
	for _, s := range ss {
		n := 0
		for _, r := range s {
			b = binary.LittleEndian.AppendUint32(b, uint32(r))
			n++
		}
		b = append(b, make([]byte, 4*(width-n))...)
	}
	return b
}

// WriteParquet writes rows to name in a fresh temporary directory and
// returns its path.
func WriteParquet[T any](t testing.TB, name string, rows []T, options ...parquet.WriterOption) string {
	t.Helper()
	return WriteParquetAt(t, filepath.Join(t.TempDir(), name), rows, options...)
}

// WriteParquetAt writes rows to the file at path and returns the path.
func WriteParquetAt[T any](t testing.TB, path string, rows []T, options ...parquet.WriterOption) string {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := parquet.NewGenericWriter[T](f, options...)
	_, err = w.Write(rows)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	return path
}

package input_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
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
			// Found by FuzzParquetScores: parquet-go read the footer's
			// length from "PAR1" and asked for 827 MB.
			name: "8 bytes",
			file: []byte("PAR1PAR1"),
			want: "8 bytes are too few for a Parquet file, which has at least 12",
		},
		{
			name: "9 bytes",
			file: []byte("PAR1\x15PAR1"),
			want: "9 bytes are too few for a Parquet file, which has at least 12",
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

// TestParquetLibraryPanicIsAnError: a schema whose group claims a negative
// number of children made parquet-go slice out of range, a panic that
// killed verdict; it is an error about the file now.
func TestParquetLibraryPanicIsAnError(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "negative_children.parquet"))
	require.NoError(t, err)
	_, err = input.OpenParquet("t.parquet", bytes.NewReader(b), int64(len(b)), errBad)
	require.ErrorIs(t, err, errBad)
	require.ErrorContains(t, err, "t.parquet: not a readable Parquet file: the Parquet library fails on it (runtime error: slice bounds out of range")
}

// pqWant reads each column of pqRow but the nested one as it can be read.
var pqWant = map[string]input.Want{"id": input.WantID, "item": input.WantID, "draw": input.WantInteger, "name": input.WantText, "score": input.WantNumber}

// readAllRows reads the named columns of the Parquet file at path to the
// end, and returns the first error.
func readAllRows(t *testing.T, path string, names ...string) (rows int, err error) {
	t.Helper()
	b, _, err := openColumns(t, path, pqWant, names...)
	if err != nil {
		return 0, err
	}
	defer b.Close()
	for {
		n, err := b.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows += n
	}
}

// Pages of every codec parquet-go writes, in data pages of both versions,
// pages smaller than a read of a header and headers longer than one (the
// statistics of an ID of a kilobyte), several pages to a column chunk and
// several chunks to a column: the checks of their headers and of what
// their data decompresses to pass them all. parquet-go v0.32.0 does not
// read back every page it writes with LZ4_RAW (a page of random
// hexadecimal IDs, for one); it reads back these.
func TestBatchesReadsEveryCodec(t *testing.T) {
	t.Parallel()
	const n = 3000
	var rows []pqRow
	for i := range n {
		r := pqRow{ID: fmt.Sprintf("u%d", i), Item: uint32(i), Draw: int16(i % 3), Name: "m"}
		if i%100 == 0 {
			r.ID = fmt.Sprintf("z%d%s", i, strings.Repeat("x", 1000)) // the largest of its page
		}
		if i%7 != 0 {
			s := float32(i % 10) // compresses well
			r.Score = &s
		}
		rows = append(rows, r)
	}
	codecs := []compress.Codec{&parquet.Uncompressed, &parquet.Snappy, &parquet.Gzip, &parquet.Zstd, &parquet.Brotli, &parquet.Lz4Raw}
	for _, codec := range codecs {
		for _, version := range []int{1, 2} {
			for _, pageSize := range []int{64, 4096} {
				path := inputtest.WriteParquet(t, "t.parquet", rows, parquet.Compression(codec), parquet.DataPageVersion(version),
					parquet.MaxRowsPerRowGroup(1000), parquet.PageBufferSize(pageSize))
				got, err := readAllRows(t, path, "id", "item", "draw", "name", "score")
				require.NoError(t, err, "%s, data page version %d, pages of %d bytes", codec, version, pageSize)
				require.Equal(t, n, got)
			}
		}
	}
}

// pageEdit rewrites the Thrift encoding of a page header.
type pageEdit func(t *testing.T, header []byte) []byte

// setHeader is a pageEdit that decodes the header, changes it with set and
// encodes it again.
func setHeader(set func(h *format.PageHeader)) pageEdit {
	return func(t *testing.T, header []byte) []byte {
		var h format.PageHeader
		require.NoError(t, thrift.Unmarshal(new(thrift.CompactProtocol), header, &h))
		set(&h)
		b, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		require.NoError(t, err)
		return b
	}
}

// claimStatistic is a pageEdit that gives a data page (version 2) a
// maximum in its statistics whose length claims n bytes, of which the
// header holds 3.
func claimStatistic(n uint64) pageEdit {
	return func(t *testing.T, header []byte) []byte {
		b := setHeader(func(h *format.PageHeader) { h.DataPageHeaderV2.V.Statistics.Max = []byte("max") })(t, header)
		i := bytes.Index(b, []byte("\x03max"))
		require.GreaterOrEqual(t, i, 0)
		return slices.Concat(b[:i], binary.AppendUvarint(nil, n), b[i+1:])
	}
}

// patchPage returns the Parquet file b with the header of page i
// (counting from 0, a dictionary page first) of column's chunk in the first
// row group rewritten by edit, and its footer changed by footer when it is
// not nil. The page's data stays as it was, whatever its new header claims;
// the footer's offsets past the header move by as much as its length
// changed.
func patchPage(t *testing.T, b []byte, column string, i int, edit pageEdit, footer func(*format.FileMetaData)) []byte {
	t.Helper()
	return rewritePage(t, b, column, i, func(t *testing.T, header, data []byte) ([]byte, []byte) {
		return edit(t, header), data
	}, footer)
}

// rewritePage is patchPage with edit rewriting the page's data as well as
// its header: the footer's offsets past the page move by as much as the
// two changed in length together.
func rewritePage(t *testing.T, b []byte, column string, i int, edit func(t *testing.T, header, data []byte) ([]byte, []byte), footer func(*format.FileMetaData)) []byte {
	t.Helper()
	var proto thrift.CompactProtocol
	end := len(b) - 8 - int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	var md format.FileMetaData
	require.NoError(t, thrift.Unmarshal(&proto, b[end:len(b)-8], &md))
	var chunk *format.ColumnMetaData
	for j := range md.RowGroups[0].Columns {
		if m := &md.RowGroups[0].Columns[j].MetaData; slices.Equal(m.PathInSchema, []string{column}) {
			chunk = m
		}
	}
	require.NotNil(t, chunk, "column %q", column)
	at := chunk.DataPageOffset
	if chunk.DictionaryPageOffset != 0 {
		at = chunk.DictionaryPageOffset
	}
	for ; ; i-- {
		r := proto.NewReaderFromBytes(b[at:end])
		var h format.PageHeader
		require.NoError(t, thrift.NewDecoder(r).Decode(&h))
		n := int64(r.BytesRead())
		if i > 0 {
			at += n + int64(h.CompressedPageSize)
			continue
		}
		size := int64(h.CompressedPageSize)
		header, data := edit(t, slices.Clone(b[at:at+n]), slices.Clone(b[at+n:at+n+size]))
		delta := int64(len(header)+len(data)) - n - size
		move := func(offset *int64) {
			if *offset > at {
				*offset += delta
			}
		}
		for g := range md.RowGroups {
			rg := &md.RowGroups[g]
			move(&rg.FileOffset)
			for j := range rg.Columns {
				c := &rg.Columns[j]
				if &c.MetaData == chunk {
					c.MetaData.TotalCompressedSize += delta
					rg.TotalCompressedSize += delta
				}
				for _, offset := range []*int64{&c.FileOffset, &c.OffsetIndexOffset, &c.ColumnIndexOffset,
					&c.MetaData.DataPageOffset, &c.MetaData.IndexPageOffset, &c.MetaData.DictionaryPageOffset, &c.MetaData.BloomFilterOffset} {
					move(offset)
				}
			}
		}
		if footer != nil {
			footer(&md)
		}
		meta, err := thrift.Marshal(&proto, &md)
		require.NoError(t, err)
		out := slices.Concat(b[:at], header, data, b[at+n+size:end], meta)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(meta)))
		return append(out, "PAR1"...)
	}
}

// A page header whose sizes or counts claim more than its column chunk
// holds, or more than the bounds allow, is refused before parquet-go reads
// the page: parquet-go sizes its buffers by the claims before it reads the
// page, so that in a file of 2.5 KB a header claiming 1 GiB made it
// allocate 1.3 GB, and one claiming a dictionary of a billion strings
// 4.3 GB, and it panicked on the last two.
func TestParquetPageHeaderBombRefused(t *testing.T) {
	const huge = 1 << 30
	uncompressed := parquet.Compression(&parquet.Uncompressed)
	v1 := parquet.DataPageVersion(1)
	tests := []struct {
		name    string
		rows    int // 100 unless set
		options []parquet.WriterOption
		column  string
		page    int // from 0, a dictionary page first
		edit    pageEdit
		footer  func(*format.FileMetaData)
		want    string
	}{
		{
			name:    "a page of 1 GiB",
			options: []parquet.WriterOption{uncompressed},
			column:  "item",
			edit:    setHeader(func(h *format.PageHeader) { h.CompressedPageSize = huge }),
			want:    "the header of page 1 of row group 1 is corrupt: it claims 1073741824 bytes, more than the ",
		},
		{
			name:    "a snappy page of 1 GiB uncompressed",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Snappy)},
			column:  "score",
			edit:    setHeader(func(h *format.PageHeader) { h.UncompressedPageSize = huge }),
			want:    "the header of page 1 of row group 1 is corrupt: it claims 1073741824 bytes uncompressed, more than 64 MiB plus 16 times its ",
		},
		{
			name:    "a gzip page (version 1) of 1 GiB uncompressed",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Gzip), v1},
			column:  "item",
			edit:    setHeader(func(h *format.PageHeader) { h.UncompressedPageSize = huge }),
			want:    "the header of page 1 of row group 1 is corrupt: it claims 1073741824 bytes uncompressed, more than 64 MiB plus 16 times its ",
		},
		{
			name:    "a dictionary of a billion strings",
			options: []parquet.WriterOption{uncompressed},
			column:  "id",
			edit:    setHeader(func(h *format.PageHeader) { h.DictionaryPageHeader.V.NumValues = huge }),
			want:    "the header of the dictionary page of row group 1 is corrupt: it claims 1073741824 values, more than its ",
		},
		{
			name:    "a page (version 1) of a billion dictionary indexes",
			options: []parquet.WriterOption{uncompressed, v1},
			column:  "name",
			page:    1,
			edit:    setHeader(func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = huge }),
			want:    "the header of page 1 of row group 1 is corrupt: it claims 1073741824 values, more than the row group's 100 rows",
		},
		{
			name:    "a page of a billion values in a row group of a trillion rows",
			options: []parquet.WriterOption{uncompressed},
			column:  "id",
			page:    1,
			edit:    setHeader(func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumValues = huge }),
			footer:  func(md *format.FileMetaData) { md.RowGroups[0].NumRows = 1 << 40 },
			want:    "the header of page 1 of row group 1 is corrupt: it claims 1073741824 values, more than the 67108864 a page may hold",
		},
		{
			// Within the bounds of one page, but more work than a file of
			// a few kilobytes can hold: 2^26 values cost 320 MiB.
			name:    "a page of 2^26 values in a file of a few kilobytes",
			options: []parquet.WriterOption{uncompressed},
			column:  "id",
			page:    1,
			edit:    setHeader(func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumValues = 1 << 26 }),
			footer:  func(md *format.FileMetaData) { md.RowGroups[0].NumRows = 1 << 40 },
			want:    "the file is corrupt: its pages, up to page 1 of row group 1, claim 336 MB to decode, more than a file of ",
		},
		{
			name:    "a statistic of 1 GiB",
			options: []parquet.WriterOption{uncompressed},
			column:  "item",
			edit:    claimStatistic(huge),
			want:    "the header of page 1 of row group 1 is corrupt: a string claims 1073741824 bytes, more than are left",
		},
		{
			name:    "a statistic of 1 GiB in a page of more than 1 MiB",
			rows:    300_000,
			options: []parquet.WriterOption{uncompressed, parquet.PageBufferSize(4 << 20)},
			column:  "item",
			edit:    claimStatistic(huge),
			want:    "the header of page 1 of row group 1 is longer than 1 MiB, or corrupt: a string claims 1073741824 bytes, more than are left",
		},
		{
			name:    "levels longer than the page (a panic in parquet-go)",
			options: []parquet.WriterOption{uncompressed},
			column:  "score",
			edit:    setHeader(func(h *format.PageHeader) { h.DataPageHeaderV2.V.DefinitionLevelsByteLength = 5000 }),
			want:    "the header of page 1 of row group 1 is corrupt: it claims 5000 bytes of levels, more than its ",
		},
		{
			name:    "more nulls than values (a panic in parquet-go)",
			options: []parquet.WriterOption{uncompressed},
			column:  "score",
			edit:    setHeader(func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumNulls = 5000 }),
			want:    "the header of page 1 of row group 1 is corrupt: it claims 5000 nulls among its 100 values",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []pqRow
			for i := range cmp.Or(tt.rows, 100) {
				r := pqRow{ID: fmt.Sprint("u", i%5), Item: uint32(i), Draw: int16(i % 3), Name: "m"}
				if i%7 != 0 {
					s := float32(i)
					r.Score = &s
				}
				rows = append(rows, r)
			}
			b, err := os.ReadFile(inputtest.WriteParquet(t, "t.parquet", rows, tt.options...))
			require.NoError(t, err)
			path := inputtest.WriteFile(t, "t.parquet", patchPage(t, b, tt.column, tt.page, tt.edit, tt.footer))
			alloc := inputtest.Allocated(func() { _, err = readAllRows(t, path, tt.column) })
			require.Less(t, alloc, uint64(4<<20), "bytes allocated")
			require.ErrorContains(t, err, fmt.Sprintf("t.parquet: column %q: not a readable Parquet file: %s", tt.column, tt.want))
			require.ErrorIs(t, err, errBad)
		})
	}
}

// bombPage is a rewritePage edit that replaces a page's compressed data
// with bomb, keeping the levels that a data page (version 2) holds
// uncompressed before it, and its header's claims but for its size and
// checksum.
func bombPage(bomb []byte) func(t *testing.T, header, data []byte) ([]byte, []byte) {
	return func(t *testing.T, header, data []byte) ([]byte, []byte) {
		var page []byte
		b := setHeader(func(h *format.PageHeader) {
			var levels int32
			if d2 := h.DataPageHeaderV2; d2.Valid {
				levels = d2.V.DefinitionLevelsByteLength + d2.V.RepetitionLevelsByteLength
			}
			page = slices.Concat(data[:levels], bomb)
			h.CompressedPageSize = int32(len(page))
			h.CRC = int32(crc32.ChecksumIEEE(page))
		})(t, header)
		return b, page
	}
}

// writeZeros writes mib MiB of zeros to w, a MiB at a time, and closes it.
func writeZeros(t *testing.T, w io.WriteCloser, mib int) {
	t.Helper()
	zeros := make([]byte, 1<<20)
	for range mib {
		_, err := w.Write(zeros)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
}

// lz4Zeros returns an LZ4 block of n zeros (n > 30), as an encoder writes
// it at best: a literal zero, then a match of all but the last 5 bytes one
// byte back, whose length takes a byte for each 255, then the last 5 bytes
// as literals, as the format asks.
func lz4Zeros(n int) []byte {
	rest := n - 1 - 5 - 4 - 15 // the match's length beyond what its token holds
	b := append([]byte{0x1f, 0, 1, 0}, bytes.Repeat([]byte{0xff}, rest/255)...)
	return append(b, byte(rest%255), 0x50, 0, 0, 0, 0, 0)
}

// A page whose data decompresses to more than its header claims is
// refused before parquet-go reads it, as is one whose data does not
// decompress where parquet-go panics or loops on it. parquet-go decompresses a
// page into a buffer of the size its header claims, but grows the buffer
// as the data asks, so that a page of a few hundred kilobytes of gzip,
// brotli, zstd or LZ4_RAW holding 256 MiB of zeros made it allocate from
// 270 MB to 3 GB, and a snappy block whose length claims 4 GiB 4.3 GB,
// whatever the header claimed. Data that is not gzip made it panic, and
// LZ4_RAW data that does not decode made it double its buffer until the
// program ran out of memory.
func TestParquetPageDataBombRefused(t *testing.T) {
	const mib = 256 // the size of each bomb, in MiB
	gzipBomb := func() []byte {
		// gzip readers read concatenated members as one stream, and one
		// member per MiB costs the test a kilobyte per MiB to write.
		member, err := parquet.Gzip.Encode(nil, make([]byte, 1<<20))
		require.NoError(t, err)
		return bytes.Repeat(member, mib)
	}
	brotliBomb := func() []byte {
		var buf bytes.Buffer
		// The largest window, which the decoder allocates as a stream
		// declares it, and a quality that writes zeros fast.
		writeZeros(t, brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 1, LGWin: 24}), mib)
		return buf.Bytes()
	}
	zstdBomb := func(sized bool) func() []byte {
		// A frame that states its content size, for which the decoder
		// allocates at once, or one that does not, for which it grows its
		// output block by block.
		return func() []byte {
			var buf bytes.Buffer
			w, err := zstd.NewWriter(nil)
			require.NoError(t, err)
			size := int64(-1) // unknown
			if sized {
				size = mib << 20
			}
			w.ResetContentSize(&buf, size)
			writeZeros(t, w, mib)
			return buf.Bytes()
		}
	}
	v1 := parquet.DataPageVersion(1)
	tests := []struct {
		name    string
		options []parquet.WriterOption
		column  string // whose first page is replaced: the dictionary of id, the only data page of the others
		data    func() []byte
		alloc   uint64 // the bytes that reading it may allocate, 4 MiB unless set
		want    string
	}{
		{
			name:    "a gzip page (version 2) of 256 MiB",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Gzip)},
			column:  "item",
			data:    gzipBomb,
			want:    "page 1 of row group 1 is corrupt: its data decompresses to more than its header's 400 bytes",
		},
		{
			name:    "a gzip page (version 2) of 256 MiB after its levels",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Gzip)},
			column:  "score",
			data:    gzipBomb,
			want:    "page 1 of row group 1 is corrupt: its data decompresses to more than its header's ",
		},
		{
			name:    "a gzip page (version 1) of 256 MiB",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Gzip), v1},
			column:  "score",
			data:    gzipBomb,
			want:    "page 1 of row group 1 is corrupt: its data decompresses to more than its header's ",
		},
		{
			name:    "a gzip dictionary page of 256 MiB",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Gzip)},
			column:  "id",
			data:    gzipBomb,
			want:    "the dictionary page of row group 1 is corrupt: its data decompresses to more than its header's ",
		},
		{
			name:    "a gzip page that is not gzip (a panic in parquet-go)",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Gzip)},
			column:  "item",
			data:    func() []byte { return []byte("this is not gzip") },
			want:    "page 1 of row group 1 is corrupt: its data does not decompress (GZIP): gzip: invalid header",
		},
		{
			name:    "a brotli page of 256 MiB",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Brotli)},
			column:  "item",
			data:    brotliBomb,
			// The decoder allocates a window of up to 16 MiB as a stream
			// declares it, growing it by doubling, with a page or without.
			alloc: 40 << 20,
			want:  "page 1 of row group 1 is corrupt: its data decompresses to more than its header's 400 bytes",
		},
		{
			name:    "a zstd page of 256 MiB, its size stated",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Zstd)},
			column:  "item",
			data:    zstdBomb(true),
			want:    "page 1 of row group 1 is corrupt: its data decompresses to more than its header's 400 bytes",
		},
		{
			name:    "a zstd page of 256 MiB, its size not stated",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Zstd)},
			column:  "item",
			data:    zstdBomb(false),
			want:    "page 1 of row group 1 is corrupt: its data decompresses to more than its header's 400 bytes",
		},
		{
			name:    "a snappy page claiming 4 GiB",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Snappy)},
			column:  "item",
			data:    func() []byte { return binary.AppendUvarint(nil, 1<<32-1) },
			want:    "page 1 of row group 1 is corrupt: its data claims 4294967295 bytes uncompressed, more than its header's 400",
		},
		{
			name:    "an LZ4_RAW page of 256 MiB",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Lz4Raw)},
			column:  "item",
			data:    func() []byte { return lz4Zeros(mib << 20) },
			want:    "page 1 of row group 1 is corrupt: its data does not decompress (LZ4_RAW) into its header's 400 bytes",
		},
		{
			name:    "an LZ4_RAW page that does not decode (without end in parquet-go)",
			options: []parquet.WriterOption{parquet.Compression(&parquet.Lz4Raw)},
			column:  "item",
			data:    func() []byte { return []byte{0x10, 'a', 0x10, 0x00} }, // a match 16 bytes back, after 1 byte
			want:    "page 1 of row group 1 is corrupt: its data does not decompress (LZ4_RAW) into its header's 400 bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []pqRow
			for i := range 100 {
				r := pqRow{ID: fmt.Sprint("u", i%5), Item: uint32(i), Draw: int16(i % 3), Name: "m"}
				if i%7 != 0 {
					s := float32(i)
					r.Score = &s
				}
				rows = append(rows, r)
			}
			b, err := os.ReadFile(inputtest.WriteParquet(t, "t.parquet", rows, tt.options...))
			require.NoError(t, err)
			path := inputtest.WriteFile(t, "t.parquet", rewritePage(t, b, tt.column, 0, bombPage(tt.data()), nil))
			alloc := inputtest.Allocated(func() { _, err = readAllRows(t, path, tt.column) })
			require.Less(t, alloc, cmp.Or(tt.alloc, 4<<20), "bytes allocated")
			require.ErrorContains(t, err, fmt.Sprintf("t.parquet: column %q: not a readable Parquet file: %s", tt.column, tt.want))
			require.ErrorIs(t, err, errBad)
		})
	}
}

// A page whose data does not decompress, where parquet-go fails on it
// without allocating more than its header claims, is left for parquet-go
// to report, at the row where it fails.
func TestParquetPageDataCorruptLeftToParquetGo(t *testing.T) {
	gzipped, err := parquet.Gzip.Encode(nil, []byte("ab")) // within the page's 8 bytes
	require.NoError(t, err)
	tests := []struct {
		codec compress.Codec
		data  []byte
	}{
		{&parquet.Gzip, append(gzipped, "then not gzip"...)},
		{&parquet.Brotli, []byte("not brotli")},
		{&parquet.Zstd, []byte("not zstd")},
		{&parquet.Snappy, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, // a length longer than 5 bytes
	}
	for _, tt := range tests {
		t.Run(tt.codec.String(), func(t *testing.T) {
			t.Parallel()
			rows := []pqRow{{ID: "u1", Item: 1}, {ID: "u2", Item: 2}}
			b, err := os.ReadFile(inputtest.WriteParquet(t, "t.parquet", rows, parquet.Compression(tt.codec)))
			require.NoError(t, err)
			path := inputtest.WriteFile(t, "t.parquet", rewritePage(t, b, "item", 0, bombPage(tt.data), nil))
			_, err = readAllRows(t, path, "item")
			require.ErrorContains(t, err, `t.parquet: record 1, column "item": cannot decode: `)
			require.ErrorIs(t, err, errBad)
		})
	}
}

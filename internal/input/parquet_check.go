package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// parquet-go decodes a file's metadata (its footer, and each page's header)
// by what the metadata declares: a list sized by its declared count, up to
// 2^31 elements, a byte string by its declared length. A footer of a few
// bytes could so make it allocate hundreds of gigabytes before it found the
// footer too short. checkFooter walks the footer's Thrift encoding first,
// without decoding it, and refuses a count or length that the bytes left
// cannot hold, and a footer that would cost parquet-go more memory than a
// file of its size plausibly needs. checkChunk does the same for the page
// headers of a column chunk, checks what they declare of their pages, and
// that each page's data decompresses to no more than its header declares.

// footerBudget bounds the memory that decoding a footer may cost, as
// thriftCheck estimates it: 64 MiB, and 16 bytes more for each byte of the
// file, since large files have large footers.
func footerBudget(size int64) int64 { return 64<<20 + 16*size }

// checkFooter checks the footer of the Parquet file r of size bytes, and
// returns a problem for the user, or "".
func checkFooter(r io.ReaderAt, size int64) string {
	const frame = 4 + 4 + 4 // "PAR1" at the start, the footer's length and "PAR1" at the end
	if size == 0 {
		return "the file is empty"
	}
	if size < frame {
		// parquet-go reads a footer length from a file of 8 to 11 bytes
		// too, and allocates what it says (827 MB for "PAR1PAR1") before
		// it finds the file too short.
		return fmt.Sprintf("%d bytes are too few for a Parquet file, which has at least %d", size, frame)
	}
	var head, tail [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return "" // parquet-go reports the failure to read
	}
	var end [8]byte
	if _, err := r.ReadAt(end[:], size-8); err != nil {
		return ""
	}
	copy(tail[:], end[4:])
	switch {
	case string(head[:]) == "PARE" || string(tail[:]) == "PARE":
		return "the file is encrypted, which verdict does not read"
	case string(head[:]) != "PAR1" || string(tail[:]) != "PAR1":
		return "" // parquet-go says which magic bytes are wrong
	}
	n := int64(binary.LittleEndian.Uint32(end[:4]))
	if n > size-frame {
		return fmt.Sprintf("the footer claims %d bytes, more than the file holds", n)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return ""
	}
	c := thriftCheck{b: footer, budget: footerBudget(size)}
	if !c.structure(0) {
		return "the footer is corrupt: " + c.problem
	}
	return ""
}

// Thrift compact protocol types.
const (
	thriftTrue   = 1
	thriftFalse  = 2
	thriftI8     = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
	thriftUUID   = 13
)

// Estimates of what parquet-go allocates when it decodes a value, for the
// budget: the largest struct of its metadata (a column chunk) is about 560
// bytes; a list element or a byte string's header takes a slice's or a
// string's header at most.
const (
	structCost  = 640
	elementCost = 24
	maxNesting  = 64
)

// thriftCheck walks a Thrift compact-protocol value in b without decoding
// it.
type thriftCheck struct {
	b       []byte
	i       int
	cost    int64
	budget  int64
	problem string
}

func (c *thriftCheck) fail(format string, args ...any) bool {
	if c.problem == "" {
		c.problem = fmt.Sprintf(format, args...)
	}
	return false
}

func (c *thriftCheck) left() int { return len(c.b) - c.i }

// spend adds to the estimated cost.
func (c *thriftCheck) spend(n int64) bool {
	c.cost += n
	if c.cost > c.budget {
		return c.fail("it declares more than a file of its size can hold")
	}
	return true
}

func (c *thriftCheck) byte() (byte, bool) {
	if c.i >= len(c.b) {
		return 0, c.fail("it ends early")
	}
	c.i++
	return c.b[c.i-1], true
}

func (c *thriftCheck) varint() (uint64, bool) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b, ok := c.byte()
		if !ok {
			return 0, false
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, true
		}
	}
	return 0, c.fail("a number is too long")
}

func (c *thriftCheck) skip(n int) bool {
	if n > c.left() {
		return c.fail("it ends early")
	}
	c.i += n
	return true
}

// structure walks a struct: fields until a stop byte.
func (c *thriftCheck) structure(depth int) bool {
	if depth > maxNesting {
		return c.fail("it nests too deep")
	}
	if !c.spend(structCost) {
		return false
	}
	for {
		h, ok := c.byte()
		if !ok {
			return false
		}
		if h == 0 {
			return true
		}
		if h>>4 == 0 { // the field's ID follows, as a varint
			if _, ok := c.varint(); !ok {
				return false
			}
		}
		switch t := h & 0x0f; t {
		case thriftTrue, thriftFalse: // the value is in the type
		default:
			if !c.value(t, depth) {
				return false
			}
		}
	}
}

// value walks a value of type t.
func (c *thriftCheck) value(t byte, depth int) bool {
	switch t {
	case thriftTrue, thriftFalse, thriftI8:
		return c.skip(1)
	case thriftI16, thriftI32, thriftI64:
		_, ok := c.varint()
		return ok
	case thriftDouble:
		return c.skip(8)
	case thriftUUID:
		return c.skip(16)
	case thriftBinary:
		n, ok := c.varint()
		switch {
		case !ok:
			return false
		case n > uint64(c.left()):
			return c.fail("a string claims %d bytes, more than are left", n)
		}
		return c.spend(elementCost+int64(n)) && c.skip(int(n))
	case thriftList, thriftSet:
		h, ok := c.byte()
		if !ok {
			return false
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, ok = c.varint(); !ok {
				return false
			}
		}
		// Every element takes a byte at least.
		if n > uint64(c.left()) {
			return c.fail("a list claims %d elements, more than the bytes left", n)
		}
		if !c.spend(int64(n) * elementCost) {
			return false
		}
		for range n {
			if !c.value(h&0x0f, depth+1) {
				return false
			}
		}
		return true
	case thriftMap:
		n, ok := c.varint()
		if !ok || n == 0 {
			return ok
		}
		kv, ok := c.byte()
		switch {
		case !ok:
			return false
		case n > uint64(c.left())/2:
			return c.fail("a map claims %d entries, more than the bytes left", n)
		}
		if !c.spend(2 * int64(n) * elementCost) {
			return false
		}
		for range n {
			if !c.value(kv>>4, depth+1) || !c.value(kv&0x0f, depth+1) {
				return false
			}
		}
		return true
	case thriftStruct:
		return c.structure(depth + 1)
	}
	return c.fail("unknown type %d", t)
}

// parquet-go reads a column chunk a page at a time, and sizes its buffers
// for a page by what the page's header declares before it reads the page
// (file.go, FilePages.ReadPage and readPage; column.go, decompress,
// decodeLevels, decodeDataPage and decodeDictionary): compressed_page_size
// bytes to read the page into, uncompressed_page_size bytes to decompress
// it into, four bytes for each of a dictionary's num_values, and for each
// of a data page's num_values a byte of levels and four bytes of
// dictionary indexes or string offsets. It checks only that they are not
// negative (validatePageHeader), so that a header of a few bytes made it
// allocate gigabytes. It also slices a data page (version 2) by its level
// lengths and null count, and panicked on ones the page cannot hold.
// checkChunk reads a chunk's page headers before parquet-go reads the
// chunk, and refuses a header that claims more than the chunk holds or
// than the bounds below allow, before it reads the page the header
// describes (pageDecoder.check).

// A page's uncompressed size is at most maxPageSlack, plus pageRatio bytes
// for each byte of its compressed data. Writers cut pages at 1 MiB (Arrow,
// parquet-mr, Spark), 256 KiB (parquet-go) or 100 MB at most (DuckDB): the
// 64 MiB holds a page of up to 64 MiB however well it compresses, and the
// ratio a larger one that compresses less well than 16 to 1, or than 48 to
// 1 at 100 MB, while a header can make parquet-go allocate at most 64 MiB
// for a page beyond 16 bytes for each byte the page holds.
const (
	maxPageSlack = 64 << 20
	pageRatio    = 16
)

// decodeBudget bounds what all the pages of a file of size bytes may claim
// to cost to decode, together: each page's uncompressed size, and
// valueCost bytes for each value it claims. It is 64 MiB, and 1,024 bytes
// more for each byte of the file: real data does not compress a
// thousandfold across a whole file (a 50 MB file may claim 51 GB), while a
// file of a few kilobytes, all claims and no data, gets under 70 MB of
// work, where the bounds of one page alone would let each of its pages
// cost hundreds of megabytes and seconds to decode.
func decodeBudget(size int64) int64 { return 64<<20 + 1024*size }

// valueCost is what parquet-go allocates for each value a page claims: 4
// bytes of dictionary indexes or string offsets and 1 of levels.
const valueCost = 5

// maxPageValues bounds a data page's num_values: 2^26 (67,108,864).
// Values are not bounded by bytes, since a run of nulls, or of one
// dictionary entry, takes a few bytes however long it is, and older
// versions of Arrow wrote such a run as one page for a whole row group,
// which pyarrow made up to 64 Mi rows long by default. parquet-go
// allocates 4 or 5 bytes for each value a header claims (four of
// dictionary indexes or string offsets, one of levels), so a page costs it
// 320 MiB at most. A page's values are at most its row group's rows as
// well, since the columns that Batches reads are flat, a value to a row.
const maxPageValues = 1 << 26

// A page header is read firstHeaderRead bytes at a time at first, twice as
// many at each try that they do not hold the whole header, up to
// maxHeaderBytes. Headers are tens of bytes, or a few kilobytes with the
// statistics of long strings.
const (
	firstHeaderRead = 256
	maxHeaderBytes  = 1 << 20
)

// checkChunk checks the page headers of the column chunk m in row group
// group (counted from 1), of rows rows, of the Parquet file r of size
// bytes, and the data of its pages with pages (pageDecoder.check), which
// parquet-go decompresses with codec; and returns a problem for the user,
// or "". It stops at a header that parquet-go fails on without allocating
// for it, since parquet-go reads no further, and leaves parquet-go to
// report it.
func checkChunk(r io.ReaderAt, size int64, m *format.ColumnMetaData, codec format.CompressionCodec, group int, rows int64, pages *pageDecoder) string {
	// parquet-go reads total_compressed_size bytes from the dictionary page,
	// when there is one, or the first data page (FilePages.init); nothing
	// checks them against the file's size, and reads stop at its end.
	start := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		start = m.DictionaryPageOffset
	}
	if start < 0 || start >= size || m.TotalCompressedSize <= 0 {
		return "" // parquet-go reads nothing, and reports the column short
	}
	hr := headerReader{r: r, end: start + min(m.TotalCompressedSize, size-start)}
	dataPages := 0
	for at := start; at < hr.end; {
		name := fmt.Sprintf("page %d of row group %d", dataPages+1, group)
		if at == start && m.DictionaryPageOffset != 0 {
			name = fmt.Sprintf("the dictionary page of row group %d", group)
		}
		h, n, problem := hr.header(at)
		if problem != "" {
			return fmt.Sprintf("the header of %s is %s", name, problem)
		}
		if h == nil || negativeClaim(h) {
			return ""
		}
		if h.Type == format.DictionaryPage {
			name = fmt.Sprintf("the dictionary page of row group %d", group)
		} else {
			dataPages++
			name = fmt.Sprintf("page %d of row group %d", dataPages, group)
		}
		claims := func(format string, args ...any) string {
			return fmt.Sprintf("the header of %s is corrupt: it claims ", name) + fmt.Sprintf(format, args...)
		}
		at += n
		compressed, uncompressed := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		if left := hr.end - at; compressed > left {
			return claims("%d bytes, more than the %d left in its column chunk", compressed, left)
		}
		if uncompressed > maxPageSlack+pageRatio*compressed {
			return claims("%d bytes uncompressed, more than %s plus %d times its %d bytes", uncompressed, sizeText(maxPageSlack), pageRatio, compressed)
		}
		if d := h.DictionaryPageHeader; d.Valid {
			// Every entry takes a byte at least: 4 for a string's length,
			// 4 or 8 for a number, the type's length for a
			// FIXED_LEN_BYTE_ARRAY. Only a compressed page's size is what
			// it decompresses to.
			data := uncompressed
			if codec == format.Uncompressed {
				data = compressed
			}
			if int64(d.V.NumValues) > data {
				return claims("%d values, more than its %d bytes hold", d.V.NumValues, data)
			}
		}
		values := int64(-1)
		switch d, d2 := h.DataPageHeader, h.DataPageHeaderV2; {
		case h.Type == format.DataPage && d.Valid:
			values = int64(d.V.NumValues)
		case h.Type == format.DataPageV2 && d2.Valid:
			values = int64(d2.V.NumValues)
			if levels := int64(d2.V.DefinitionLevelsByteLength) + int64(d2.V.RepetitionLevelsByteLength); levels > compressed {
				return claims("%d bytes of levels, more than its %d bytes", levels, compressed)
			}
			if nulls := int64(d2.V.NumNulls); nulls > values {
				return claims("%d nulls among its %d values", nulls, values)
			}
		case h.Type != format.DictionaryPage:
			return "" // parquet-go reads no further: a data page without its header, or an index page
		case !h.DictionaryPageHeader.Valid:
			return "" // parquet-go reads no further: a dictionary page without its header
		}
		switch {
		case values > rows:
			return claims("%d values, more than the row group's %d rows", values, rows)
		case values > maxPageValues:
			return claims("%d values, more than the %d a page may hold", values, maxPageValues)
		}
		if pages.spent += uncompressed + valueCost*max(values, 0); pages.spent > decodeBudget(size) {
			return fmt.Sprintf("the file is corrupt: its pages, up to %s, claim %.0f MB to decode, more than a file of %d bytes holds (at most %.0f MB)",
				name, float64(pages.spent)/1e6, size, float64(decodeBudget(size))/1e6)
		}
		switch problem, decodes := pages.check(r, at, h, codec); {
		case problem != "":
			return fmt.Sprintf("%s is corrupt: %s", name, problem)
		case !decodes:
			return "" // parquet-go reads no further
		}
		at += compressed
	}
	return ""
}

// negativeClaim reports whether parquet-go refuses the page header h,
// before it allocates anything for the page, for a negative size or count
// (validatePageHeader).
func negativeClaim(h *format.PageHeader) bool {
	d, d2, dict := h.DataPageHeader, h.DataPageHeaderV2, h.DictionaryPageHeader
	return h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 ||
		d.Valid && d.V.NumValues < 0 || dict.Valid && dict.V.NumValues < 0 ||
		d2.Valid && (d2.V.NumValues < 0 || d2.V.NumNulls < 0 || d2.V.NumRows < 0 ||
			d2.V.DefinitionLevelsByteLength < 0 || d2.V.RepetitionLevelsByteLength < 0)
}

// headerReader reads the page headers of a column chunk, keeping what it
// last read of the chunk, so that the headers of small pages cost a read
// for several.
type headerReader struct {
	r   io.ReaderAt
	end int64  // where the chunk ends, or the file if it ends first
	buf []byte // the chunk from off
	off int64
}

// header checks the Thrift encoding of the page header at at, and decodes
// it as parquet-go does. It returns the header and its length; or a
// problem for the user; or neither when the header cannot be read, or
// parquet-go fails to decode it as well.
func (hr *headerReader) header(at int64) (*format.PageHeader, int64, string) {
	for want := int64(firstHeaderRead); ; {
		n := min(want, maxHeaderBytes, hr.end-at)
		if at < hr.off || hr.off+int64(len(hr.buf)) < at+n {
			if int64(cap(hr.buf)) < n {
				hr.buf = make([]byte, n)
			}
			hr.buf, hr.off = hr.buf[:n], at
			if k, _ := hr.r.ReadAt(hr.buf, at); int64(k) < n {
				return nil, 0, "" // parquet-go reports the failure to read
			}
		}
		b := hr.buf[at-hr.off:]
		c := thriftCheck{b: b, budget: footerBudget(int64(len(b)))}
		if c.structure(0) {
			var h format.PageHeader
			if thrift.NewDecoder(new(thrift.CompactProtocol).NewReaderFromBytes(b[:c.i])).Decode(&h) != nil {
				return nil, 0, ""
			}
			return &h, int64(c.i), ""
		}
		switch {
		case at+int64(len(b)) == hr.end:
			return nil, 0, "corrupt: " + c.problem
		case len(b) >= maxHeaderBytes:
			return nil, 0, "longer than " + sizeText(maxHeaderBytes) + ", or corrupt: " + c.problem
		}
		want = 2 * int64(len(b))
	}
}

// parquet-go decompresses a page into a buffer of the size its header
// claims, but grows the buffer for as long as the page's data asks
// (column.go, decompress, and the codecs of compress/): it reads gzip and
// brotli to the end of their stream and decodes zstd to the end of its
// frames, however long; snappy allocates the length its block starts
// with, up to 4 GiB; and when LZ4_RAW data does not decode into the
// buffer, it doubles the buffer and tries again, without end when the data
// does not decode at all. Pages of a few hundred kilobytes holding 256 MiB
// of zeros made it allocate from 270 MB to 3 GB, a snappy block starting
// with a length of 4 GiB 4.3 GB, whatever their headers claimed; and it
// panicked on gzip data without a gzip header. parquet-go v0.32.0 cannot
// be given a codec to read with, nor a bound on what a codec decodes: it
// takes a column's codec from a table it does not export
// (LookupCompressionCodec) when it opens the file. So checkChunk
// decompresses each page first, with the libraries and settings that
// parquet-go decompresses it with but bounded to the size its header
// claims, and refuses a page that decompresses to more; parquet-go then
// decompresses the page into the buffer it sized. A page whose data does
// not decompress is left to parquet-go, which fails on it where the check
// did and reports it; but for gzip data without a gzip header, on which
// parquet-go panics, and LZ4_RAW data, on which it loops, which checkChunk
// refuses.
//
// That costs a second decompression of each page of gzip, brotli, zstd and
// LZ4_RAW, which allocates no more than the page: gzip and brotli are read
// through io.LimitReader and the output discarded; zstd and LZ4_RAW are
// decoded into a buffer of the size the header claims, which they fail to
// decode past (zstd.WithDecodeAllCapLimit, and the length of the buffer
// that lz4.UncompressBlock fills). brotli's decoder also allocates the
// window a stream declares, up to 16 MiB, as parquet-go's does. A snappy
// block states the length it decodes to in the varint that starts it,
// which parquet-go trusts, and which is all that checkChunk reads of it.

// pageDecoder decompresses the pages of the column chunks that Batches
// reads, keeping its buffers and decoders from page to page.
type pageDecoder struct {
	// spent is what the pages checked so far claim to cost to decode, for
	// the file's decodeBudget.
	spent    int64
	src, dst []byte // a page's compressed data, and its decompression
	input    bytes.Reader
	gzip     *gzip.Reader
	brotli   *brotli.Reader
	zstd     *zstd.Decoder
}

// check decompresses the data of the page at at of r, whose header is h,
// as parquet-go decompresses it with codec. It returns a problem for the
// user when the data decompresses to more than the header's
// uncompressed_page_size, or does not decompress where parquet-go would
// panic or loop on it; otherwise "", and whether parquet-go decompresses
// the page, since when it fails to, it reports the failure, having
// allocated no more than the check did.
func (d *pageDecoder) check(r io.ReaderAt, at int64, h *format.PageHeader, codec format.CompressionCodec) (problem string, decodes bool) {
	// A data page (version 2) holds its levels uncompressed, before its
	// compressed values, and may hold its values uncompressed as well
	// (DataPageHeaderV2.IsCompressed).
	from := int64(0)
	if d2 := h.DataPageHeaderV2; h.Type == format.DataPageV2 {
		if d2.V.IsCompressed.Valid && !d2.V.IsCompressed.V {
			return "", true
		}
		from = int64(d2.V.DefinitionLevelsByteLength) + int64(d2.V.RepetitionLevelsByteLength)
	}
	n := int64(h.CompressedPageSize) - from
	switch codec {
	case format.Uncompressed:
		return "", true
	case format.Snappy:
		n = min(n, binary.MaxVarintLen32) // its length
	case format.Gzip, format.Brotli, format.Zstd, format.Lz4Raw:
	default:
		return "", false // a codec that parquet-go does not decompress
	}
	if int64(cap(d.src)) < n {
		d.src = make([]byte, n)
	}
	src := d.src[:n]
	if k, _ := r.ReadAt(src, at+from); int64(k) < n {
		return "", false // parquet-go reports the failure to read
	}
	size := int64(h.UncompressedPageSize)
	var (
		got int64 // bytes decompressed, up to size+1
		err error
	)
	switch codec {
	case format.Snappy:
		claim, err := snappy.DecodedLen(src)
		if err == nil && int64(claim) > size {
			return fmt.Sprintf("its data claims %d bytes uncompressed, more than its header's %d", claim, size), false
		}
		return "", err == nil
	case format.Gzip:
		// parquet-go's reader reads concatenated gzip members as one
		// stream, as this one does. parquet-go panics on data that does
		// not start with a gzip header (compress.Decompressor.Decode).
		d.input.Reset(src)
		if d.gzip == nil {
			d.gzip, err = gzip.NewReader(&d.input)
		} else {
			err = d.gzip.Reset(&d.input)
		}
		if err != nil {
			return fmt.Sprintf("its data does not decompress (%s): %v", codec, err), false
		}
		got, err = io.Copy(io.Discard, io.LimitReader(d.gzip, size+1))
	case format.Brotli:
		d.input.Reset(src)
		if d.brotli == nil {
			d.brotli = brotli.NewReader(&d.input)
		} else {
			err = d.brotli.Reset(&d.input)
		}
		if err == nil {
			got, err = io.Copy(io.Discard, io.LimitReader(d.brotli, size+1))
		}
	case format.Zstd:
		if d.zstd == nil {
			// As parquet-go's decoder, but that DecodeAll stops at the
			// capacity of the buffer it is given. It starts no goroutine
			// (it decodes no stream), so needs no Close.
			d.zstd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
			if err != nil {
				panic(err) // the options are valid
			}
		}
		var out []byte
		out, err = d.zstd.DecodeAll(src, d.buffer(size)[:0])
		got = int64(len(out))
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			got, err = size+1, nil
		}
	case format.Lz4Raw:
		// A block that decodes into more bytes than it is given fails as
		// one that does not decode at all, on which parquet-go doubles its
		// buffer without end.
		if _, err := lz4.UncompressBlock(src, d.buffer(size)); err != nil {
			return fmt.Sprintf("its data does not decompress (%s) into its header's %d bytes", codec, size), false
		}
		return "", true
	}
	if got > size {
		return fmt.Sprintf("its data decompresses to more than its header's %d bytes", size), false
	}
	return "", err == nil
}

// buffer returns d.dst as size bytes, of capacity size.
func (d *pageDecoder) buffer(size int64) []byte {
	if int64(cap(d.dst)) < size {
		d.dst = make([]byte, size)
	}
	return d.dst[:size:size]
}

package input

import (
	"cmp"
	"errors"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// parquetBatch is how many rows Batches decodes at a time from each column.
const parquetBatch = 4096

// OpenParquet reads the footer of the Parquet file at path, of size bytes,
// without its page indexes and bloom filters, which a reader that reads
// every row does not need. A file it cannot read is an *Error wrapping kind
// and the parquet-go error. The footer is checked before parquet-go decodes
// it, so that one whose counts and lengths claim more than its bytes hold
// is refused rather than allocated for.
func OpenParquet(path string, r io.ReaderAt, size int64, kind error) (_ *parquet.File, err error) {
	defer libraryFailed(&err, Location{Path: path}, kind)
	if problem := checkFooter(r, size); problem != "" {
		return nil, Location{Path: path}.Errorf(kind, "not a readable Parquet file: %s", problem)
	}
	f, err := parquet.OpenFile(r, size,
		parquet.SkipPageIndex(true),
		parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(1<<16),
	)
	if err != nil {
		return nil, Location{Path: path}.Wrap(kind, err, "not a readable Parquet file: %v", err)
	}
	return f, nil
}

// libraryFailed turns a panic of parquet-go on a file it cannot read into
// an *Error about the file, in *err. parquet-go checks most of what a file
// claims before it uses it, but not all: a schema whose group claims a
// negative number of children makes it slice out of range. What it left
// behind is not used again: the caller stops at the error.
func libraryFailed(err *error, at Location, kind error) {
	if r := recover(); r != nil {
		*err = at.Errorf(kind, "not a readable Parquet file: the Parquet library fails on it (%v)", r)
	}
}

// Want is what a column must hold to be read in a role.
type Want byte

const (
	WantID      Want = iota // a string, or an integer read as its decimal text
	WantInteger             // an integer, such as a draw
	WantNumber              // a float, double or integer
	WantText                // a string, such as a metric name
)

func (w Want) String() string {
	return [...]string{"a string or an integer", "an integer", "a float, double or integer", "a string"}[w]
}

// Column is one column that Batches reads, with its current batch. Read as
// WantID it fills S and Null with IDs; as WantText, S and Null with one
// string per distinct name; otherwise F and Null with every value, and I or U
// with integers by their signedness.
type Column struct {
	Name  string
	want  Want
	leaf  int
	kind  byte                    // 's' string, 'i' signed integer, 'u' unsigned integer, 'f' float
	codec format.CompressionCodec // what parquet-go decompresses every chunk of the column with

	Null []bool
	S    []string
	I    []int64
	U    []uint64
	F    []float64

	reader parquet.ColumnChunkValueReader
	ids    IDs
	names  Interner
}

// NewColumn checks that the file's column c holds what want asks for, and
// returns it ready for Batches. A column that does not is an *Error at at
// that wraps kind.
func NewColumn(c *parquet.Column, want Want, at Location, kind error) (*Column, error) {
	at = at.WithColumn(c.Name())
	if !c.Leaf() || c.Repeated() {
		return nil, at.Errorf(kind, "is nested (a group, list or map); only flat columns of numbers and strings are supported")
	}
	k, ok := columnKind(c.Type())
	if ok {
		switch want {
		case WantID:
			ok = k != 'f' // integers are kept as their decimal text
		case WantInteger:
			ok = k == 'i' || k == 'u'
		case WantNumber:
			ok = k != 's'
		case WantText:
			ok = k == 's'
		}
	}
	if !ok {
		return nil, at.Errorf(kind, "has type %s; it must be %s", c.Type(), want)
	}
	// parquet-go decompresses every chunk of a column with the codec of its
	// first chunk, whatever the others declare.
	col := &Column{Name: c.Name(), want: want, leaf: c.Index(), kind: k, codec: format.Uncompressed}
	if codec := c.Compression(); codec != nil {
		col.codec = codec.CompressionCodec()
	}
	if want == WantText {
		col.names = Interner{}
	}
	return col, nil
}

// columnKind sorts a column type into what Column converts it to: 's' a
// string, 'i' or 'u' a signed or unsigned integer, 'f' a float. It returns
// false for types that are none of these, such as booleans, decimals, dates
// and timestamps.
func columnKind(t parquet.Type) (kind byte, ok bool) {
	// parquet-go panics when asked the kind of a leaf that a corrupt
	// schema annotates as a map or a list; such a column is of no kind.
	defer func() {
		if recover() != nil {
			kind, ok = 0, false
		}
	}()
	var logical format.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
		logical = lt.Value
	}
	switch t.Kind() {
	case parquet.Float, parquet.Double:
		return 'f', true
	case parquet.Int32, parquet.Int64:
		if it, ok := logical.(*format.IntType); ok {
			if it.IsSigned {
				return 'i', true
			}
			return 'u', true
		}
		if logical != nil {
			return 0, false
		}
		if ct := t.ConvertedType(); ct != nil {
			switch *ct {
			case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
				return 'u', true
			case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
				return 'i', true
			}
			return 0, false
		}
		return 'i', true
	case parquet.ByteArray, parquet.FixedLenByteArray:
		switch logical.(type) {
		case nil, *format.StringType, *format.EnumType:
			return 's', true
		}
	}
	return 0, false
}

// Unsigned reports whether the column holds unsigned integers, which are in
// U rather than I.
func (c *Column) Unsigned() bool { return c.kind == 'u' }

// IntText formats the integer at i of the batch for a message.
func (c *Column) IntText(i int) string {
	if c.kind == 'u' {
		return strconv.FormatUint(c.U[i], 10)
	}
	return strconv.FormatInt(c.I[i], 10)
}

func (c *Column) reset() {
	c.Null = c.Null[:0]
	c.S, c.I, c.U, c.F = c.S[:0], c.I[:0], c.U[:0], c.F[:0]
}

// add appends decoded values to the batch.
func (c *Column) add(vals []parquet.Value) {
	switch c.want {
	case WantID:
		c.addIDs(vals)
	case WantText:
		for _, v := range vals {
			c.Null = append(c.Null, v.IsNull())
			c.S = append(c.S, c.names.InternBytes(v.ByteArray()))
		}
	default:
		c.addNumbers(vals)
	}
}

// addNumbers appends values as numbers: every value to F, and integers also
// to I or U by their signedness.
func (c *Column) addNumbers(vals []parquet.Value) {
	for _, v := range vals {
		null := v.IsNull()
		var (
			x float64
			i int64
			u uint64
		)
		switch {
		case null:
		case v.Kind() == parquet.Float:
			x = float64(v.Float())
		case v.Kind() == parquet.Double:
			x = v.Double()
		case v.Kind() == parquet.Int32 && c.kind == 'u':
			u = uint64(v.Uint32())
			x = float64(u)
		case v.Kind() == parquet.Int32:
			i = int64(v.Int32())
			x = float64(i)
		case v.Kind() == parquet.Int64 && c.kind == 'u':
			u = v.Uint64()
			x = float64(u)
		case v.Kind() == parquet.Int64:
			i = v.Int64()
			x = float64(i)
		}
		c.Null = append(c.Null, null)
		c.F, c.I, c.U = append(c.F, x), append(c.I, i), append(c.U, u)
	}
}

// addIDs appends IDs: strings as they are, integers as decimal text.
func (c *Column) addIDs(vals []parquet.Value) {
	var scratch [24]byte
	for _, v := range vals {
		null := v.IsNull()
		c.Null = append(c.Null, null)
		var b []byte
		switch {
		case null:
		case v.Kind() == parquet.Int32 && c.kind == 'u':
			b = strconv.AppendUint(scratch[:0], uint64(v.Uint32()), 10)
		case v.Kind() == parquet.Int32:
			b = strconv.AppendInt(scratch[:0], int64(v.Int32()), 10)
		case v.Kind() == parquet.Int64 && c.kind == 'u':
			b = strconv.AppendUint(scratch[:0], v.Uint64(), 10)
		case v.Kind() == parquet.Int64:
			b = strconv.AppendInt(scratch[:0], v.Int64(), 10)
		default:
			b = v.ByteArray()
		}
		c.S = append(c.S, c.ids.FromBytes(b))
	}
}

// Batches reads columns of a Parquet file in step, row group by row group.
// Within a row group it reads each column page by page, a batch of rows at
// a time, so that memory holds one page per column and never a whole column
// chunk or file. Before it reads a row group, it reads the page headers of
// the columns it reads, and refuses as corrupt a page whose header claims
// more bytes than its column chunk holds, more than 64 MiB plus 16 times
// its size once uncompressed, or more values than its row group's rows or
// 2^26, since parquet-go allocates for a page what its header claims
// before it reads the page; and a page whose data decompresses to more
// than its header claims, since parquet-go allocates for a page's data for
// as long as it decompresses (checkChunk).
type Batches struct {
	at     Location // the file, and what a row is called
	kind   error
	file   *parquet.File
	groups []parquet.RowGroup
	group  int   // index of the next row group to open
	left   int64 // rows of the open row group not yet batched
	rows   int64 // rows batched so far
	cols   []*Column
	buf    []parquet.Value
	pages  pageDecoder
}

// NewBatches reads cols of f. at names the file and, in Unit, what a row
// is called in messages ("row" or "record"); kind is the sentinel that
// errors about the file's content wrap.
func NewBatches(f *parquet.File, cols []*Column, at Location, kind error) *Batches {
	return &Batches{at: at, kind: kind, file: f, groups: f.RowGroups(), cols: cols, buf: make([]parquet.Value, parquetBatch)}
}

// Next decodes the next batch of rows of every column, opening the next row
// group when the current one is done, and returns how many rows it holds,
// or io.EOF after the last row. A column that ends early or does not
// decode is an *Error at the row where it failed; one whose page headers
// claim more than they may is an *Error at the column.
func (b *Batches) Next() (_ int, err error) {
	defer libraryFailed(&err, b.at, b.kind)
	for b.left == 0 {
		if b.group == len(b.groups) {
			return 0, io.EOF
		}
		if err := b.Close(); err != nil {
			return 0, err
		}
		rg := b.groups[b.group]
		meta := &b.file.Metadata().RowGroups[b.group]
		for _, c := range b.cols {
			if problem := checkChunk(b.file, b.file.Size(), &meta.Columns[c.leaf].MetaData, c.codec, b.group+1, rg.NumRows(), &b.pages); problem != "" {
				return 0, b.at.WithColumn(c.Name).Errorf(b.kind, "not a readable Parquet file: %s", problem)
			}
		}
		b.group++
		b.left = rg.NumRows()
		chunks := rg.ColumnChunks()
		for _, c := range b.cols {
			c.reader = parquet.NewColumnChunkValueReader(chunks[c.leaf])
		}
	}
	n := int(min(b.left, parquetBatch))
	for _, c := range b.cols {
		c.reset()
		for got := 0; got < n; {
			k, err := c.reader.ReadValues(b.buf[:n-got])
			c.add(b.buf[:k])
			got += k
			at := b.at
			at.Pos, at.Column = b.rows+int64(got)+1, c.Name
			if err == io.EOF && got < n {
				return 0, at.Errorf(b.kind, "the column ends early: its row group should have %d more %ss", b.left-int64(got), cmp.Or(b.at.Unit, "row"))
			}
			if err != nil && err != io.EOF {
				return 0, at.Wrap(b.kind, err, "cannot decode: %v", err)
			}
		}
	}
	b.left -= int64(n)
	b.rows += int64(n)
	return n, nil
}

// Close releases the readers of the open row group.
func (b *Batches) Close() error {
	var errs []error
	for _, c := range b.cols {
		if c.reader != nil {
			errs = append(errs, c.reader.Close())
			c.reader = nil
		}
	}
	return errors.Join(errs...)
}

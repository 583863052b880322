package input

import (
	"cmp"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Bools reads a column of booleans of a Parquet file, such as a binary
// classifier's labels as pandas writes a bool column, which Column does not
// read. It reads the values of the rows in order, as many at a time as its
// caller asks, so that it goes in step with a Batches over the same file:
// after Batches.Next returns n rows, Next(n) reads the same rows of the
// boolean column. Like Batches, it reads one page at a time and checks the
// page headers of each column chunk before parquet-go reads it (checkChunk),
// with a budget of its own.
type Bools struct {
	Name string
	// Null and B are the values of the last batch: Null[i] for a missing
	// value, B[i] for the value.
	Null []bool
	B    []bool

	at     Location // the file, and what a row is called
	kind   error
	file   *parquet.File
	leaf   int
	codec  format.CompressionCodec
	group  int   // index of the next row group to open
	left   int64 // rows of the open row group not yet read
	rows   int64 // rows read so far
	reader parquet.ColumnChunkValueReader
	buf    []parquet.Value
	pages  pageDecoder
}

// NewBools checks that the column c of f holds booleans, and returns it
// ready to read. A column that does not is an *Error at at that wraps kind.
func NewBools(f *parquet.File, c *parquet.Column, at Location, kind error) (*Bools, error) {
	at = at.WithColumn(c.Name())
	if !c.Leaf() || c.Repeated() {
		return nil, at.Errorf(kind, "is nested (a group, list or map); only flat columns of numbers and strings are supported")
	}
	if c.Type().Kind() != parquet.Boolean {
		return nil, at.Errorf(kind, "has type %s; it must be a boolean", c.Type())
	}
	b := &Bools{Name: c.Name(), at: at, kind: kind, file: f, leaf: c.Index(), codec: format.Uncompressed}
	if codec := c.Compression(); codec != nil {
		b.codec = codec.CompressionCodec()
	}
	return b, nil
}

// Next reads the values of the next n rows into Null and B, opening the
// next row group when the current one is done. A column that ends before n
// more rows, or does not decode, is an *Error at the row where it failed;
// one whose page headers claim more than they may is an *Error at the
// column.
func (b *Bools) Next(n int) (err error) {
	defer libraryFailed(&err, b.at, b.kind)
	b.Null, b.B = b.Null[:0], b.B[:0]
	for len(b.B) < n {
		if b.left == 0 {
			if err := b.openGroup(); err != nil {
				return err
			}
			continue
		}
		want := int(min(int64(n-len(b.B)), b.left, parquetBatch))
		if cap(b.buf) < want {
			b.buf = make([]parquet.Value, parquetBatch)
		}
		k, err := b.reader.ReadValues(b.buf[:want])
		for _, v := range b.buf[:k] {
			b.Null = append(b.Null, v.IsNull())
			b.B = append(b.B, !v.IsNull() && v.Boolean())
		}
		b.left -= int64(k)
		b.rows += int64(k)
		at := b.at
		at.Pos = b.rows + 1
		if err == io.EOF && k < want {
			return at.Errorf(b.kind, "the column ends early: its row group should have %d more %ss", b.left, cmp.Or(b.at.Unit, "row"))
		}
		if err != nil && err != io.EOF {
			return at.Wrap(b.kind, err, "cannot decode: %v", err)
		}
	}
	return nil
}

// openGroup opens the next row group that has rows, after checking the
// page headers of the column's chunk in it.
func (b *Bools) openGroup() error {
	groups := b.file.RowGroups()
	if b.group == len(groups) {
		at := b.at
		at.Pos = b.rows + 1
		return at.Errorf(b.kind, "the column ends early: the file has no more row groups")
	}
	if err := b.Close(); err != nil {
		return err
	}
	rg := groups[b.group]
	meta := &b.file.Metadata().RowGroups[b.group]
	if problem := checkChunk(b.file, b.file.Size(), &meta.Columns[b.leaf].MetaData, b.codec, b.group+1, rg.NumRows(), &b.pages); problem != "" {
		return b.at.Errorf(b.kind, "not a readable Parquet file: %s", problem)
	}
	if rg.NumRows() < 0 {
		return b.at.Errorf(b.kind, "not a readable Parquet file: row group %d claims %d rows", b.group+1, rg.NumRows())
	}
	b.group++
	b.left = rg.NumRows()
	b.reader = parquet.NewColumnChunkValueReader(rg.ColumnChunks()[b.leaf])
	return nil
}

// Close releases the reader of the open row group.
func (b *Bools) Close() error {
	if b.reader == nil {
		return nil
	}
	err := b.reader.Close()
	b.reader = nil
	return err
}

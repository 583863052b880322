package evaluate

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// parquetBatch is how many rows the Parquet reader decodes at a time from
// each column.
const parquetBatch = 4096

// parquetDecoder reads a Parquet file row group by row group. Within a row
// group it reads each column it needs page by page, in batches of rows kept
// in step across the columns, so memory holds one page per column and never
// a whole column chunk or file.
type parquetDecoder struct {
	path   string
	file   *parquet.File
	groups []parquet.RowGroup
	group  int   // index of the next row group to open
	left   int64 // rows of the open row group not yet batched
	row    int64 // rows returned so far
	cols   columns
	id     *pqColumn
	draw   *pqColumn // nil without a draw column
	metric *pqColumn // long form
	values []*pqColumn
	all    []*pqColumn
	batch  int // rows in the current batch
	next   int // the next row of the batch to return
	buf    []parquet.Value
	lastID string
	names  interner
}

// pqColumn is one column that the decoder reads, with its current batch.
type pqColumn struct {
	name   string
	leaf   int
	kind   byte // 's' string, 'i' signed integer, 'u' unsigned integer, 'f' float
	reader parquet.ColumnChunkValueReader
	null   []bool
	s      []string
	i      []int64
	u      []uint64
	f      []float64
}

// openParquet reads the footer of a Parquet file and checks its schema.
func openParquet(path string, r io.ReaderAt, size int64) (*parquetDecoder, layout, error) {
	f, err := parquet.OpenFile(r, size,
		parquet.SkipPageIndex(true),
		parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(1<<16),
	)
	if err != nil {
		return nil, layout{}, &inputError{msg: fmt.Sprintf("%s: not a readable Parquet file: %v", path, err), cause: err}
	}
	file := at{path: path, kind: "column"}
	var (
		names []string
		leafs []*parquet.Column
	)
	for _, c := range f.Root().Columns() {
		if strings.HasPrefix(c.Name(), "__index_level_") {
			continue // a pandas index
		}
		if !c.Leaf() || c.Repeated() {
			return nil, layout{}, file.column(c.Name()).errorf("is nested (a group, list or map); only flat columns of numbers and strings are supported")
		}
		names = append(names, c.Name())
		leafs = append(leafs, c)
	}
	cols, problem := findColumns(names, "column")
	if problem != "" {
		return nil, layout{}, file.errorf("%s", problem)
	}
	d := &parquetDecoder{
		path:   path,
		file:   f,
		groups: f.RowGroups(),
		cols:   cols,
		buf:    make([]parquet.Value, parquetBatch),
		names:  interner{},
	}
	add := func(i int, want string) (*pqColumn, error) {
		c := leafs[i]
		kind, ok := parquetKind(c.Type())
		if ok {
			switch want {
			case "string":
				ok = kind != 'f' // integers are kept as their decimal text
			case "integer":
				ok = kind == 'i' || kind == 'u'
			case "number":
				ok = kind != 's'
			case "text":
				ok = kind == 's'
			}
		}
		if !ok {
			return nil, file.column(c.Name()).errorf("has type %s; it must be %s", c.Type(), map[string]string{
				"string":  "a string or an integer",
				"integer": "an integer",
				"number":  "a float, double or integer",
				"text":    "a string",
			}[want])
		}
		pc := &pqColumn{name: c.Name(), leaf: c.Index(), kind: kind}
		d.all = append(d.all, pc)
		return pc, nil
	}
	b, lay, err := bindColumns(cols, names, add)
	if err != nil {
		return nil, layout{}, err
	}
	d.id, d.draw, d.metric, d.values = b.id, b.draw, b.metric, b.values
	return d, lay, nil
}

// parquetKind sorts a column type into what the decoder converts it to:
// 's' a string, 'i' or 'u' a signed or unsigned integer, 'f' a float. It
// returns false for types that are none of these, such as booleans,
// decimals, dates and timestamps.
func parquetKind(t parquet.Type) (byte, bool) {
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

func (d *parquetDecoder) decode(rec *record) error {
	for d.next >= d.batch {
		if err := d.readBatch(); err != nil {
			return err
		}
	}
	i := d.next
	d.next++
	d.row++
	rec.pos = d.row
	a := at{path: d.path, unit: "row", pos: d.row, kind: "column"}
	if d.id.null[i] {
		return a.column(d.id.name).errorf("sample ID missing")
	}
	rec.id = d.id.s[i]
	a = a.withSample(rec.id)
	if d.draw != nil {
		c := d.draw
		switch {
		case c.null[i]:
			return a.column(c.name).errorf("draw missing")
		case c.kind == 'u' && c.u[i] > maxDraw, c.kind == 'i' && (c.i[i] < 0 || c.i[i] > maxDraw):
			return a.column(c.name).errorf("draw %s is not a whole number from 0 to %d", c.text(i), maxDraw)
		case c.kind == 'u':
			rec.draw = int64(c.u[i])
		default:
			rec.draw = c.i[i]
		}
	}
	if d.metric != nil {
		if d.metric.null[i] || d.metric.s[i] == "" {
			return a.column(d.metric.name).errorf("metric name missing")
		}
		rec.metric = d.metric.s[i]
		v := d.values[0]
		if v.null[i] {
			return a.column(v.name).errorf("value missing")
		}
		rec.value = v.f[i]
		return nil
	}
	for m, v := range d.values {
		if v.null[i] {
			return a.column(v.name).errorf("value missing")
		}
		rec.values[m] = v.f[i]
	}
	return nil
}

// readBatch decodes the next rows of every column, opening the next row
// group when the current one is done.
func (d *parquetDecoder) readBatch() error {
	for d.left == 0 {
		if d.group == len(d.groups) {
			return io.EOF
		}
		d.closeReaders()
		rg := d.groups[d.group]
		d.group++
		d.left = rg.NumRows()
		chunks := rg.ColumnChunks()
		for _, c := range d.all {
			c.reader = parquet.NewColumnChunkValueReader(chunks[c.leaf])
		}
	}
	n := int(min(d.left, parquetBatch))
	for _, c := range d.all {
		c.reset()
		for got := 0; got < n; {
			k, err := c.reader.ReadValues(d.buf[:n-got])
			if c == d.metric {
				c.convertNames(d.buf[:k], d.names)
			} else if c == d.id {
				d.lastID = c.convertIDs(d.buf[:k], d.lastID)
			} else {
				c.convert(d.buf[:k])
			}
			got += k
			if err == io.EOF && got < n {
				return at{path: d.path, unit: "row", pos: d.row + int64(got) + 1, kind: "column", name: c.name}.
					errorf("the column ends early: its row group should have %d more rows", d.left-int64(got))
			}
			if err != nil && err != io.EOF {
				return &inputError{
					msg:   fmt.Sprintf("%s: cannot decode: %v", at{path: d.path, unit: "row", pos: d.row + int64(got) + 1, kind: "column", name: c.name}, err),
					cause: err,
				}
			}
		}
	}
	d.left -= int64(n)
	d.batch, d.next = n, 0
	return nil
}

func (c *pqColumn) reset() {
	c.null = c.null[:0]
	c.s, c.i, c.u, c.f = c.s[:0], c.i[:0], c.u[:0], c.f[:0]
}

// convert appends a column's values to the batch as numbers: every value
// to f, and integers also to i or u by their signedness, for draws.
func (c *pqColumn) convert(vals []parquet.Value) {
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
		c.null = append(c.null, null)
		c.f, c.i, c.u = append(c.f, x), append(c.i, i), append(c.u, u)
	}
}

// convertIDs appends sample IDs to the batch: strings as they are, integers
// as decimal text. A run of equal IDs shares one string.
func (c *pqColumn) convertIDs(vals []parquet.Value, last string) string {
	var scratch [24]byte
	for _, v := range vals {
		null := v.IsNull()
		c.null = append(c.null, null)
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
		if string(b) != last || len(b) == 0 {
			last = string(b)
		}
		c.s = append(c.s, last)
	}
	return last
}

// convertNames appends metric names to the batch, one string per name.
func (c *pqColumn) convertNames(vals []parquet.Value, names interner) {
	for _, v := range vals {
		null := v.IsNull()
		c.null = append(c.null, null)
		c.s = append(c.s, names.intern(v.ByteArray()))
	}
}

// text formats an integer of the batch for a message.
func (c *pqColumn) text(i int) string {
	if c.kind == 'u' {
		return strconv.FormatUint(c.u[i], 10)
	}
	return strconv.FormatInt(c.i[i], 10)
}

func (d *parquetDecoder) closeReaders() error {
	var errs []error
	for _, c := range d.all {
		if c.reader != nil {
			errs = append(errs, c.reader.Close())
			c.reader = nil
		}
	}
	return errors.Join(errs...)
}

func (d *parquetDecoder) close() error { return d.closeReaders() }

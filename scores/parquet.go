package scores

import (
	"io"

	"github.com/verdict-ml/verdict/internal/input"
)

// parquetDecoder reads a Parquet file, a batch of rows of every column it
// needs at a time (input.Batches), so memory holds one page per column and
// never a whole column chunk or file.
type parquetDecoder struct {
	at     input.Location // the file; its rows are the records
	rows   *input.Batches
	row    int64 // rows returned so far
	id     *input.Column
	draw   *input.Column // nil without a draw column
	metric *input.Column // long form
	values []*input.Column
	batch  int // rows in the current batch
	next   int // the next row of the batch to return
}

// openParquet reads the footer of a Parquet file and checks its schema.
func openParquet(path string, r io.ReaderAt, size int64) (*parquetDecoder, layout, error) {
	f, err := input.OpenParquet(path, r, size, ErrBadInput)
	if err != nil {
		return nil, layout{}, err
	}
	file := input.Location{Path: path, Unit: "row"}
	names, leafs := input.ParquetColumns(f)
	cols, problem := findColumns(names, "column")
	if problem != "" {
		return nil, layout{}, file.Errorf(ErrBadInput, "%s", problem)
	}
	var all []*input.Column
	use := func(i int, want input.Want) (*input.Column, error) {
		c, err := input.NewColumn(leafs[i], want, file, ErrBadInput)
		all = append(all, c)
		return c, err
	}
	b, lay, err := bindColumns(cols, names, use)
	if err != nil {
		return nil, layout{}, err
	}
	d := &parquetDecoder{at: file, rows: input.NewBatches(f, all, file, ErrBadInput)}
	d.id, d.draw, d.metric, d.values = b.id, b.draw, b.metric, b.values
	return d, lay, nil
}

func (d *parquetDecoder) decode(rec *record) error {
	for d.next >= d.batch {
		n, err := d.rows.Next()
		if err != nil {
			return err
		}
		d.batch, d.next = n, 0
	}
	i := d.next
	d.next++
	d.row++
	rec.pos = d.row
	a := d.at
	a.Pos = d.row
	if d.id.Null[i] {
		return a.WithColumn(d.id.Name).Errorf(ErrBadInput, "sample ID missing")
	}
	rec.id = d.id.S[i]
	a = a.WithSample(rec.id)
	if problem := input.IDProblem("sample ID", rec.id); problem != "" {
		return a.WithColumn(d.id.Name).Errorf(ErrBadInput, "%s", problem)
	}
	if c := d.draw; c != nil {
		switch {
		case c.Null[i]:
			return a.WithColumn(c.Name).Errorf(ErrBadInput, "draw missing")
		case c.Unsigned() && c.U[i] > maxDraw, !c.Unsigned() && (c.I[i] < 0 || c.I[i] > maxDraw):
			return a.WithColumn(c.Name).Errorf(ErrBadInput, "draw %s is not a whole number from 0 to %d", c.IntText(i), maxDraw)
		case c.Unsigned():
			rec.draw = int64(c.U[i])
		default:
			rec.draw = c.I[i]
		}
	}
	if d.metric != nil {
		if d.metric.Null[i] {
			return a.WithColumn(d.metric.Name).Errorf(ErrBadInput, "metric name missing")
		}
		if problem := nameProblem(d.metric.S[i]); problem != "" {
			return a.WithColumn(d.metric.Name).Errorf(ErrBadInput, "%s", problem)
		}
		rec.metric = d.metric.S[i]
		v := d.values[0]
		if v.Null[i] {
			return a.WithColumn(v.Name).Errorf(ErrBadInput, "value missing")
		}
		if problem := tinyProblem(v.F[i]); problem != "" {
			return a.WithColumn(v.Name).Errorf(ErrBadInput, "%s", problem)
		}
		rec.value = v.F[i]
		return nil
	}
	for m, v := range d.values {
		if v.Null[i] {
			return a.WithColumn(v.Name).Errorf(ErrBadInput, "value missing")
		}
		if problem := tinyProblem(v.F[i]); problem != "" {
			return a.WithColumn(v.Name).Errorf(ErrBadInput, "%s", problem)
		}
		rec.values[m] = v.F[i]
	}
	return nil
}

func (d *parquetDecoder) close() error { return d.rows.Close() }

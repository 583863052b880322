package scores

import (
	"io"

	"github.com/verdict-ml/verdict/internal/input"
)

// csvDecoder reads CSV and TSV files with a header row. Reading a 70 MB
// file of 1,000,000 rows and 10 metrics takes about half a second.
type csvDecoder struct {
	at     input.Location // the file; its lines are the records
	r      *input.CSV
	cols   columns
	ids    input.IDs
	metric input.Interner
}

// openCSV reads the header of a CSV (comma ',') or TSV (comma '\t') file.
func openCSV(path string, r io.Reader, comma rune) (*csvDecoder, layout, error) {
	at := input.Location{Path: path}
	cr, err := input.NewCSV(path, r, comma, headerColumns, ErrBadInput)
	if err == io.EOF {
		return nil, layout{}, at.Errorf(ErrBadInput, "the file is empty; it needs a header line naming sample_id and the metric columns")
	}
	if err != nil {
		return nil, layout{}, err
	}
	d := &csvDecoder{at: at, r: cr, metric: input.Interner{}}
	var problem string
	if d.cols, problem = findColumns(cr.Header, "column"); problem != "" {
		at.Pos = cr.Line
		return nil, layout{}, at.Errorf(ErrBadInput, "%s", problem)
	}
	lay := layout{unit: "line", long: d.cols.long, hasDraw: d.cols.draw >= 0}
	for _, i := range d.cols.metrics {
		lay.metrics = append(lay.metrics, cr.Header[i])
	}
	return d, lay, nil
}

func (d *csvDecoder) decode(rec *record) error {
	fields, err := d.r.Read()
	if err != nil {
		return err
	}
	rec.pos = d.r.Line
	a := d.at
	a.Pos = rec.pos
	if problem := d.r.Ragged(fields); problem != "" {
		if d.cols.id < len(fields) {
			a = a.WithSample(d.ids.From(fields[d.cols.id]))
		}
		return a.Errorf(ErrBadInput, "%s", problem)
	}
	rec.id = d.ids.From(fields[d.cols.id])
	a = a.WithSample(rec.id)
	if problem := input.IDProblem("sample ID", rec.id); problem != "" {
		return a.WithColumn(d.r.Header[d.cols.id]).Errorf(ErrBadInput, "%s", problem)
	}
	if d.cols.draw >= 0 {
		var problem string
		if rec.draw, problem = parseDraw(fields[d.cols.draw]); problem != "" {
			return a.WithColumn("draw").Errorf(ErrBadInput, "%s", problem)
		}
	}
	if d.cols.long {
		name := fields[d.cols.metric]
		if problem := nameProblem(name); problem != "" {
			return a.WithColumn("metric").Errorf(ErrBadInput, "%s", problem)
		}
		rec.metric = d.metric.Intern(name)
		var problem string
		if rec.value, problem = parseValue(fields[d.cols.value]); problem != "" {
			return a.WithColumn("value").Errorf(ErrBadInput, "%s", problem)
		}
		return nil
	}
	for i, col := range d.cols.metrics {
		v, problem := parseValue(fields[col])
		if problem != "" {
			return a.WithColumn(d.r.Header[col]).Errorf(ErrBadInput, "%s", problem)
		}
		rec.values[i] = v
	}
	return nil
}

func (d *csvDecoder) close() error { return nil }

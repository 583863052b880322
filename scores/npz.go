package scores

import (
	"archive/zip"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/internal/input"
)

// npzBatch is how many rows the NumPy reader decodes at a time from each
// array, unless their elements are large (input.BatchRows).
const npzBatch = 8192

// npzDecoder reads a NumPy .npz file: a zip archive of .npy arrays, as
// np.savez and np.savez_compressed write it. Each member is opened on its
// own (zip.File.Open returns independent readers over the file), and the
// arrays are read in step, a batch of rows at a time, so that no array is
// ever loaded whole.
type npzDecoder struct {
	at      input.Location // the file; its rows are the records
	members []io.Closer
	id      *input.NPY
	draw    *input.NPY
	metric  *input.NPY
	values  []*input.NPY
	used    []*input.NPY
	n       int64 // rows in every array
	row     int64 // rows returned so far
	rows    int   // rows per batch
	batch   int
	next    int
	ids     input.IDs
	names   input.Interner
	idBuf   []string
	drawBuf []int64
	nameBuf []string
	valBufs [][]float64
}

// openNPZ opens every member of an .npz file and reads its .npy header.
func openNPZ(path string, r io.ReaderAt, size int64) (_ *npzDecoder, _ layout, err error) {
	d := &npzDecoder{names: input.Interner{}}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	file, names, arrays, err := openNPZArrays(path, r, size, headerColumns, ErrBadInput, &d.members)
	if err != nil {
		return nil, layout{}, err
	}
	d.at = file
	cols, problem := findColumns(names, "array")
	if problem != "" {
		if cols.id < 0 {
			problem += `; save the arrays by name, as np.savez(path, sample_id=ids, **metrics)`
		}
		return nil, layout{}, file.Errorf(ErrBadInput, "%s", problem)
	}
	d.rows = npzBatch
	use := func(i int, want input.Want) (*input.NPY, error) {
		a := arrays[i]
		if len(a.Shape) != 1 {
			return nil, a.Errorf("has shape %s; only 1-D arrays are supported, so save one array per metric", a.ShapeText())
		}
		if a.Type.Kind == 0 {
			return nil, a.Errorf("%s", a.Problem)
		}
		ok := false
		switch k := a.Type.Kind; want {
		case input.WantID:
			ok = k != 'f'
		case input.WantInteger:
			ok = k == 'i' || k == 'u'
		case input.WantNumber:
			ok = k == 'f' || k == 'i' || k == 'u'
		case input.WantText:
			ok = k == 'U' || k == 'S'
		}
		if !ok {
			return nil, a.Errorf("has dtype %s; it must be %s", a.Type, map[input.Want]string{
				input.WantID:      "strings or integers",
				input.WantInteger: "integers",
				input.WantNumber:  "floats or integers",
				input.WantText:    "strings",
			}[want])
		}
		if err := a.CheckData(); err != nil {
			return nil, err
		}
		d.rows = input.BatchRows(d.rows, a.Type.Size)
		d.used = append(d.used, a)
		return a, nil
	}
	b, lay, err := bindColumns(cols, names, use)
	if err != nil {
		return nil, layout{}, err
	}
	d.id, d.draw, d.metric, d.values = b.id, b.draw, b.metric, b.values
	d.valBufs = make([][]float64, len(d.values))
	d.n = d.id.Shape[0]
	for _, a := range d.used {
		if a.Shape[0] != d.n {
			return nil, layout{}, file.Errorf(ErrBadInput, "arrays differ in length: %q has %d values, %q has %d",
				d.id.At.Column, d.n, a.At.Column, a.Shape[0])
		}
	}
	return d, lay, nil
}

func (d *npzDecoder) decode(rec *record) error {
	if d.next >= d.batch {
		if err := d.readBatch(); err != nil {
			return err
		}
	}
	i := d.next
	d.next++
	d.row++
	rec.pos = d.row
	rec.id = d.idBuf[i]
	if problem := input.IDProblem("sample ID", rec.id); problem != "" {
		return d.rowAt(d.id).WithSample(rec.id).Errorf(ErrBadInput, "%s", problem)
	}
	if d.draw != nil {
		if dr := d.drawBuf[i]; dr < 0 || dr > maxDraw {
			text := "above 2^63"
			if dr >= 0 || d.draw.Type.Kind != 'u' {
				text = strconv.FormatInt(dr, 10)
			}
			return d.rowAt(d.draw).WithSample(rec.id).Errorf(ErrBadInput, "draw %s is not a whole number from 0 to %d", text, maxDraw)
		}
		rec.draw = d.drawBuf[i]
	}
	if d.metric != nil {
		if problem := nameProblem(d.nameBuf[i]); problem != "" {
			return d.rowAt(d.metric).WithSample(rec.id).Errorf(ErrBadInput, "%s", problem)
		}
		rec.metric = d.nameBuf[i]
		rec.value = d.valBufs[0][i]
		if problem := tinyProblem(rec.value); problem != "" {
			return d.rowAt(d.values[0]).WithSample(rec.id).Errorf(ErrBadInput, "%s", problem)
		}
		return nil
	}
	for m := range d.values {
		rec.values[m] = d.valBufs[m][i]
		if problem := tinyProblem(rec.values[m]); problem != "" {
			return d.rowAt(d.values[m]).WithSample(rec.id).Errorf(ErrBadInput, "%s", problem)
		}
	}
	return nil
}

// rowAt locates the current row in array a.
func (d *npzDecoder) rowAt(a *input.NPY) input.Location {
	at := a.At
	at.Pos = d.row
	return at
}

// readBatch reads the next rows of every array, or checks the ends of the
// arrays and returns io.EOF after the last row.
func (d *npzDecoder) readBatch() error {
	left := d.n - d.row
	if left == 0 {
		for _, a := range d.used {
			if err := a.Finish(); err != nil {
				return err
			}
		}
		return io.EOF
	}
	n := int(min(left, int64(d.rows)))
	buf, err := d.id.Next(n)
	if err != nil {
		return err
	}
	d.idBuf = d.id.Type.AppendIDs(d.idBuf[:0], buf, &d.ids)
	if d.draw != nil {
		if buf, err = d.draw.Next(n); err != nil {
			return err
		}
		d.drawBuf = d.draw.Type.Ints(d.drawBuf[:0], buf)
	}
	if d.metric != nil {
		if buf, err = d.metric.Next(n); err != nil {
			return err
		}
		d.nameBuf = d.metric.Type.AppendNames(d.nameBuf[:0], buf, d.names)
	}
	for m, a := range d.values {
		if buf, err = a.Next(n); err != nil {
			return err
		}
		d.valBufs[m] = a.Type.Floats(d.valBufs[m][:0], buf)
	}
	d.batch, d.next = n, 0
	return nil
}

// openNPZArrays opens every member of an .npz file and reads its .npy
// header, refusing an archive of more members than limit allows and a member
// that is not a .npy array, with errors of kind. Each member opened is
// appended to members, for the caller to close, on error too.
func openNPZArrays(path string, r io.ReaderAt, size int64, limit input.Columns, kind error, members *[]io.Closer) (file input.Location, names []string, arrays []*input.NPY, err error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return file, nil, nil, input.Location{Path: path}.Wrap(kind, err, "not a NumPy .npz file: %v", err)
	}
	file = input.Location{Path: path, Unit: "row", ColumnNoun: "array"}
	if len(zr.File) > limit.Max {
		// Each member opened holds a decompressor.
		return file, nil, nil, file.Errorf(kind, "the archive holds %d members; %s", len(zr.File), limit.Why)
	}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return file, nil, nil, file.Errorf(kind, "member %q is not a .npy array", f.Name)
		}
		at := file.WithColumn(name)
		rc, err := f.Open()
		if err != nil {
			return file, nil, nil, at.Wrap(kind, err, "%v", err)
		}
		*members = append(*members, rc)
		a, err := input.ReadNPY(rc, int64(min(f.UncompressedSize64, math.MaxInt64)), at, kind)
		if err != nil {
			return file, nil, nil, err
		}
		names = append(names, name)
		arrays = append(arrays, a)
	}
	if len(arrays) == 0 {
		return file, nil, nil, file.Errorf(kind, "the archive holds no arrays")
	}
	return file, names, arrays, nil
}

func (d *npzDecoder) close() error {
	var errs []error
	for _, m := range d.members {
		errs = append(errs, m.Close())
	}
	return errors.Join(errs...)
}

package scores

import (
	"encoding/binary"
	"io"
	"strings"

	"github.com/verdict-ml/verdict/internal/input"
)

// readPredictionsNPZ reads a predictions file in NumPy's .npz: a zip
// archive of 1-D .npy arrays of equal length, read in step a batch of rows
// at a time, as the scores reader reads them.
func readPredictionsNPZ(path string, r io.ReaderAt, size, maxHeld int64) (_ *Predictions, err error) {
	var members []io.Closer
	defer func() {
		for _, m := range members {
			if closed := m.Close(); err == nil && closed != nil {
				err = closed
			}
		}
	}()
	file, names, arrays, err := openNPZArrays(path, r, size, predictionColumns, ErrBadPredictions, &members)
	if err != nil {
		return nil, err
	}
	lay, problem := findPredictionColumns(names, "array")
	if problem != "" {
		if lay.id < 0 {
			problem += "; save the arrays by name, as np.savez(path, sample_id=ids, label=labels, score=scores)"
		}
		return nil, file.Errorf(ErrBadPredictions, "%s", problem)
	}

	id, label := arrays[lay.id], arrays[lay.label]
	if label.Descr == "|b1" && !lay.multiclass() {
		// NumPy's booleans, one byte each, which ReadNPY leaves undecoded.
		label.Type = input.NPYType{Order: binary.LittleEndian, Kind: 'b', Size: 1}
	}
	check := func(a *input.NPY, kinds, want string) error {
		if len(a.Shape) != 1 {
			return a.Errorf("has shape %s; only 1-D arrays are supported, so save one array per column", a.ShapeText())
		}
		if a.Type.Kind == 0 {
			return a.Errorf("%s", a.Problem)
		}
		if strings.IndexByte(kinds, a.Type.Kind) < 0 {
			return a.Errorf("has dtype %s; it must be %s", a.Type, want)
		}
		return a.CheckData()
	}
	if err := check(id, "iuUS", "strings or integers"); err != nil {
		return nil, err
	}
	if lay.multiclass() {
		err = check(label, "iuUS", "class names, as strings or integers")
	} else {
		err = check(label, "iufb", "0 or 1, as integers, floats or booleans")
	}
	if err != nil {
		return nil, err
	}
	var values []*input.NPY
	for _, i := range lay.scores {
		if err := check(arrays[i], "fiu", "floats or integers"); err != nil {
			return nil, err
		}
		values = append(values, arrays[i])
	}
	n := id.Shape[0]
	// Fewer rows at a time with many classes: a batch of every array
	// holds its bytes and their float64s.
	batch := max(64, npzBatch/len(values))
	for _, a := range append([]*input.NPY{id, label}, values...) {
		if a.Shape[0] != n {
			return nil, file.Errorf(ErrBadPredictions, "arrays differ in length: %q has %d values, %q has %d",
				id.At.Column, n, a.At.Column, a.Shape[0])
		}
		batch = input.BatchRows(batch, a.Type.Size)
	}

	s := newPredictionSet(file, lay, maxHeld)
	var (
		ids       input.IDs
		labelIDs  input.IDs
		idBuf     []string
		labelText []string
		labelNums []float64
		valBufs   = make([][]float64, len(values))
	)
	for row := int64(0); row < n; {
		k := int(min(n-row, int64(batch)))
		buf, err := id.Next(k)
		if err != nil {
			return nil, err
		}
		idBuf = id.Type.AppendIDs(idBuf[:0], buf, &ids)
		lbuf, err := label.Next(k)
		if err != nil {
			return nil, err
		}
		switch t := label.Type; {
		case lay.multiclass():
			labelText = t.AppendIDs(labelText[:0], lbuf, &labelIDs)
		case t.Kind == 'b':
			labelNums = labelNums[:0]
			for _, b := range lbuf {
				labelNums = append(labelNums, float64(min(b, 1)))
			}
		default:
			labelNums = t.Floats(labelNums[:0], lbuf)
		}
		for m, a := range values {
			vbuf, err := a.Next(k)
			if err != nil {
				return nil, err
			}
			valBufs[m] = a.Type.Floats(valBufs[m][:0], vbuf)
		}
		for i := range k {
			row++
			a, err := s.sample(s.at(row), idBuf[i])
			if err != nil {
				return nil, err
			}
			var l labelValue
			switch t := label.Type; {
			case lay.multiclass() && (t.Kind == 'i' || t.Kind == 'u'):
				l = numberLabel(0, labelText[i])
			case lay.multiclass():
				l = textLabel(labelText[i])
			case t.Kind == 'b':
				l = labelValue{kind: labelBool, truth: labelNums[i] == 1}
			default:
				l = numberLabel(labelNums[i], "")
				if x := labelNums[i]; x != 0 && x != 1 && t.Kind != 'f' {
					l.text = t.IntText(lbuf, i) // as stored, beyond a float64's integers
				}
			}
			class, err := s.label(a, l)
			if err != nil {
				return nil, err
			}
			for m := range values {
				v := valBufs[m][i]
				if err := s.score(a, m, v, ""); err != nil {
					return nil, err
				}
			}
			if err := s.add(a, idBuf[i], class); err != nil {
				return nil, err
			}
		}
	}
	for _, a := range append([]*input.NPY{id, label}, values...) {
		if err := a.Finish(); err != nil {
			return nil, err
		}
	}
	return s.done("the arrays are empty")
}

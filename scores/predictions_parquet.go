package scores

import (
	"errors"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/verdict-ml/verdict/internal/input"
)

// readPredictionsParquet reads a predictions file in Parquet, a batch of
// rows of every column at a time (input.Batches).
func readPredictionsParquet(path string, r io.ReaderAt, size, maxHeld int64) (_ *Predictions, err error) {
	f, err := input.OpenParquet(path, r, size, ErrBadPredictions)
	if err != nil {
		return nil, err
	}
	file := input.Location{Path: path, Unit: "row"}
	names, leafs := input.ParquetColumns(f)
	lay, problem := findPredictionColumns(names, "column")
	if problem != "" {
		return nil, file.Errorf(ErrBadPredictions, "%s", problem)
	}

	id, err := input.NewColumn(leafs[lay.id], input.WantID, file, ErrBadPredictions)
	if err != nil {
		return nil, err
	}
	cols := []*input.Column{id}
	var (
		label     *input.Column // nil for booleans
		bools     *input.Bools
		labelLeaf = leafs[lay.label]
		kind      = parquetKind(labelLeaf)
		integers  = kind == parquet.Int32 || kind == parquet.Int64
	)
	switch {
	case lay.multiclass():
		label, err = input.NewColumn(labelLeaf, input.WantID, file, ErrBadPredictions)
	case kind == parquet.Boolean:
		bools, err = input.NewBools(f, labelLeaf, file, ErrBadPredictions)
	case kind == parquet.ByteArray || kind == parquet.FixedLenByteArray:
		err = file.WithColumn(labelLeaf.Name()).Errorf(ErrBadPredictions,
			"has type %s; a binary label is 0 or 1, in a column of integers, floats or booleans", labelLeaf.Type())
	default:
		label, err = input.NewColumn(labelLeaf, input.WantNumber, file, ErrBadPredictions)
	}
	if err != nil {
		return nil, err
	}
	if label != nil {
		cols = append(cols, label)
	}
	var values []*input.Column
	for _, i := range lay.scores {
		c, err := input.NewColumn(leafs[i], input.WantNumber, file, ErrBadPredictions)
		if err != nil {
			return nil, err
		}
		values = append(values, c)
	}
	cols = append(cols, values...)
	batches := input.NewBatches(f, cols, file, ErrBadPredictions)
	defer func() {
		closed := batches.Close()
		if bools != nil {
			closed = errors.Join(closed, bools.Close())
		}
		if err == nil && closed != nil {
			err = closed
		}
	}()

	s := newPredictionSet(file, lay, maxHeld)
	var row int64
	for {
		n, err := batches.Next()
		if err == io.EOF {
			return s.done("the file has no rows")
		}
		if err != nil {
			return nil, err
		}
		if bools != nil {
			if err := bools.Next(n); err != nil {
				return nil, err
			}
		}
		for i := range n {
			row++
			a := s.at(row)
			if id.Null[i] {
				return nil, s.missingSample(a)
			}
			if a, err = s.sample(a, id.S[i]); err != nil {
				return nil, err
			}
			var l labelValue
			switch {
			case bools != nil && bools.Null[i], label != nil && label.Null[i]:
				l = labelValue{kind: labelMissing}
			case bools != nil:
				l = labelValue{kind: labelBool, truth: bools.B[i]}
			case lay.multiclass() && integers: // as decimal text
				l = numberLabel(0, label.S[i])
			case lay.multiclass():
				l = textLabel(label.S[i])
			default:
				l = numberLabel(label.F[i], "")
				if x := label.F[i]; x != 0 && x != 1 && integers {
					l.text = label.IntText(i) // as stored, beyond a float64's integers
				}
			}
			class, err := s.label(a, l)
			if err != nil {
				return nil, err
			}
			for j, c := range values {
				if c.Null[i] {
					return nil, s.scoreMissing(a, j)
				}
				if err := s.score(a, j, c.F[i], ""); err != nil {
					return nil, err
				}
			}
			if err := s.add(a, id.S[i], class); err != nil {
				return nil, err
			}
		}
	}
}

// parquetKind returns the physical type of the column c, or -1 when
// parquet-go cannot say: it panics when asked the kind of a leaf that a
// corrupt schema annotates as a map or a list. input.NewColumn then refuses
// the column for its type.
func parquetKind(c *parquet.Column) (kind parquet.Kind) {
	defer func() {
		if recover() != nil {
			kind = -1
		}
	}()
	return c.Type().Kind()
}

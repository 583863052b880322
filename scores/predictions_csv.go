package scores

import (
	"io"

	"github.com/verdict-ml/verdict/internal/input"
)

// readPredictionsCSV reads a predictions file in CSV (comma ',') or TSV
// (comma '\t') from r, its text decompressed.
func readPredictionsCSV(path string, r io.Reader, comma rune, maxHeld int64) (*Predictions, error) {
	file := input.Location{Path: path}
	cr, err := input.NewCSV(path, r, comma, predictionColumns, ErrBadPredictions)
	if err == io.EOF {
		return nil, file.Errorf(ErrBadPredictions, "the file is empty; it needs a header line naming its columns: %s", predictionsHelp("column"))
	}
	if err != nil {
		return nil, err
	}
	lay, problem := findPredictionColumns(cr.Header, "column")
	if problem != "" {
		at := file
		at.Pos = cr.Line
		return nil, at.Errorf(ErrBadPredictions, "%s", problem)
	}
	s := newPredictionSet(file, lay, maxHeld)
	var ids input.IDs
	for {
		fields, err := cr.Read()
		if err == io.EOF {
			return s.done("the file has a header line but no rows")
		}
		if err != nil {
			return nil, err
		}
		a := s.at(cr.Line)
		if problem := cr.Ragged(fields); problem != "" {
			if lay.id < len(fields) {
				a = a.WithSample(ids.From(fields[lay.id]))
			}
			return nil, a.Errorf(ErrBadPredictions, "%s", problem)
		}
		id := ids.From(fields[lay.id])
		if a, err = s.sample(a, id); err != nil {
			return nil, err
		}
		label, err := s.label(a, textLabel(fields[lay.label]))
		if err != nil {
			return nil, err
		}
		for i, col := range lay.scores {
			if err := s.scoreText(a, i, fields[col]); err != nil {
				return nil, err
			}
		}
		if err := s.add(a, id, label); err != nil {
			return nil, err
		}
	}
}

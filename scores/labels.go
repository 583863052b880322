package scores

import (
	"io"
	"slices"

	"github.com/verdict-ml/verdict/internal/input"
	"github.com/verdict-ml/verdict/store"
)

// ReadLabels reads the 0/1 labels of an evaluation set's samples, for
// DeLong's test of correlated AUCs: a CSV file (gzipped or not) with the
// columns sample_id and label, in any order and among others, one sample a
// line. Sample IDs follow the rule of the score files: the white space
// around them is no part of them.
//
// A label is a number that is 0 or 1, written as Python, NumPy and pandas
// write numbers: 1, 1.0 (as pandas writes a column of floats) or 1e+00 (as
// np.savetxt does), but not 0x1 or 1_0.
//
// It returns an error wrapping ErrBadInput for a file without those
// columns, a ragged line or a label that is not 0 or 1, naming the line and
// the sample, and the *os.PathError of os.Open when the file cannot be
// opened. A sample labelled twice is left to the store, which refuses it.
func ReadLabels(path string) ([]store.Label, error) {
	f, err := input.Open(path, "a labels file", nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text, err := f.Text(ErrBadInput)
	if err != nil {
		return nil, err
	}
	at := input.Location{Path: path}
	r, err := input.NewCSV(path, text, ',', input.Columns{Max: input.MaxColumns}, ErrBadInput)
	if err == io.EOF {
		return nil, at.Errorf(ErrBadInput, "the file is empty; it needs a header line sample_id,label")
	}
	if err != nil {
		return nil, err
	}
	id, label := slices.Index(r.Header, "sample_id"), slices.Index(r.Header, "label")
	if id < 0 || label < 0 {
		at.Pos = r.Line
		return nil, at.Errorf(ErrBadInput, "want the columns sample_id and label, not %s", input.QuoteList(r.Header))
	}
	var (
		ids    input.IDs
		labels []store.Label
	)
	for {
		fields, err := r.Read()
		if err == io.EOF {
			return labels, nil
		}
		if err != nil {
			return nil, err
		}
		at.Pos = r.Line
		if problem := r.Ragged(fields); problem != "" {
			return nil, at.Errorf(ErrBadInput, "%s", problem)
		}
		sample := ids.From(fields[id])
		if problem := input.IDProblem("sample ID", sample); problem != "" {
			return nil, at.WithSample(sample).WithColumn("sample_id").Errorf(ErrBadInput, "%s", problem)
		}
		text := input.TrimID(fields[label])
		switch v, err := input.ParseNumber(text); {
		case err == nil && (v == 0 && !input.LostInReal(text, v) || v == 1):
			labels = append(labels, store.Label{SampleID: sample, Label: int16(v)})
		default:
			return nil, at.WithSample(sample).WithColumn("label").Errorf(ErrBadInput, "label %q is not 0 or 1", fields[label])
		}
	}
}

package scores

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/internal/input"
)

// Predictions is a classifier's predictions for an evaluation set, read
// whole: one row per sample, in file order.
type Predictions struct {
	Path string // the file, as given
	Task string // TaskBinary or TaskMulticlass
	// Classes are the class names: {"0", "1"} for a binary task; for a
	// multi-class one the names of the p_<class> columns, in file order.
	Classes   []string
	SampleIDs []string
	// Labels are each sample's class, an index into Classes (binary: 0 or 1).
	Labels []int32
	// Scores are one score per sample for a binary task, and len(Classes)
	// probabilities per sample, row-major, for a multi-class one: sample
	// i's probability of class c is Scores[i*len(Classes)+c].
	Scores []float64
	// Probabilities reports whether the binary scores all lie in [0, 1],
	// so that the metrics that need probabilities (log loss, Brier score,
	// calibration error) apply. It is always true for a multi-class task.
	Probabilities bool
}

// The tasks of Predictions.Task.
const (
	TaskBinary     = "binary"
	TaskMulticlass = "multiclass"
)

// PredictionOptions are the options of ReadPredictions.
type PredictionOptions struct {
	// MaxHeldBytes bounds the memory the predictions may take (IDs,
	// labels, scores, the duplicate check); 0 means 2 GiB. Past it the
	// read fails with an error naming the file and row and saying to split
	// the evaluation set.
	MaxHeldBytes int64
}

// defaultPredictionsHeld is the bound on the memory of predictions when
// PredictionOptions.MaxHeldBytes is 0: 2 GiB, the bound of the ranking
// readers of package evaluate. A million binary predictions with IDs of 10
// bytes take about 100 MiB.
const defaultPredictionsHeld = 2 << 30

// ErrBadPredictions is wrapped by every error of ReadPredictions about the
// content of a predictions file: its header, schema or arrays, and each of
// its rows. Callers use errors.Is(err, ErrBadPredictions) to tell a user's
// data error from an I/O failure. The message never repeats this
// sentinel's text; it reads like
//
//	preds.csv: line 7 (sample "u42"), column "label": label "2" is not 0 or 1
//
// with the file as given to ReadPredictions, the line (text formats) or
// the 1-based data row (Parquet, NumPy), the sample ID when known and the
// column.
var ErrBadPredictions = errors.New("malformed predictions file")

// maxClasses is the most classes a multi-class predictions file may have:
// p_<class> columns beside sample_id and label, as many as a scores file
// has metrics, which ImageNet's 1,000 classes fill.
const maxClasses = maxMetrics

// predictionColumns bounds the columns of a CSV or TSV predictions file,
// and the arrays of an .npz archive.
var predictionColumns = input.Columns{
	Max: maxClasses + 2,
	Why: fmt.Sprintf("a predictions file has sample_id, label and at most %d p_<class> columns", maxClasses),
}

// ReadPredictions reads a classifier's predictions file whole: one row per
// sample of an evaluation set, with the sample's label and the
// classifier's score, or its probability of each class.
//
// format is one of "csv", "tsv", "jsonl" ("ndjson" is the same), "parquet"
// and "npz", or "" to choose by the file name's extension, as OpenScores
// does: text formats may be gzipped (preds.csv.gz).
//
// A binary classifier's file has the columns (JSON keys, Parquet columns,
// NumPy arrays) sample_id, label and score, in any order:
//
//   - sample_id: the sample's ID, a string or an integer, by the rule of
//     the score files: without the white space around it, not empty, UTF-8
//     without NUL bytes, at most 1,024 bytes, and in one row only;
//   - label: 0 or 1, as a number equal to it (1, 1.0, 1e+00), a JSON
//     boolean, or a Parquet or NumPy column of integers, floats or
//     booleans;
//   - score: any finite number, a probability or a logit, higher meaning
//     more likely positive; Predictions.Probabilities says whether every
//     score is in [0, 1].
//
// A multi-class classifier's file has sample_id, label and a p_<class>
// column for each class, at least two, whose names after p_ (without the
// white space around them) are the class names, in file order. Each
// probability is in [0, 1], and each row sums to 1 within
// classify.RowSumTolerance (1e-6). The label is a class name: text equal
// to one, or a number (in JSON Lines, Parquet and NumPy) whose decimal text
// is one, as 2 is the class of p_2.
//
// Any other column, a missing one, both score and p_ columns, or a single
// p_ column is refused with the layout a file must have, as are more than
// 1,000 classes. An empty file, or one without rows, is refused too. A
// pandas index is refused in CSV and skipped in Parquet, as in the score
// files.
//
// It returns an error wrapping ErrUnknownFormat for an unknown format, the
// *os.PathError of os.Open when the file cannot be opened, and an error
// wrapping ErrBadPredictions for any problem with the file's content,
// naming the file, the line or row, the sample ID when known and the
// column, as in
//
//	preds.csv: line 9 (sample "x"): probabilities sum to 0.97, not 1 within 1e-06
//	preds.parquet: row 12 (sample "u7"), column "sample_id": the sample appears twice, at rows 3 and 12; a predictions file has one row per sample
//
// Predictions that would take more memory than opts.MaxHeldBytes are
// refused at the line or row where they pass it. A negative MaxHeldBytes
// is a programmer's error and panics.
func ReadPredictions(path, format string, opts PredictionOptions) (*Predictions, error) {
	if opts.MaxHeldBytes < 0 {
		panic("scores: negative PredictionOptions.MaxHeldBytes")
	}
	maxHeld := opts.MaxHeldBytes
	if maxHeld == 0 {
		maxHeld = defaultPredictionsHeld
	}
	format, err := scoresFormat(path, format)
	if err != nil {
		return nil, err
	}
	f, err := input.Open(path, "a predictions file", nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch format {
	case "csv", "tsv":
		text, err := f.Text(ErrBadPredictions)
		if err != nil {
			return nil, err
		}
		comma := ','
		if format == "tsv" {
			comma = '\t'
		}
		return readPredictionsCSV(path, text, comma, maxHeld)
	case "jsonl", "ndjson":
		text, err := f.Text(ErrBadPredictions)
		if err != nil {
			return nil, err
		}
		return readPredictionsJSONL(path, text, maxHeld)
	case "parquet":
		return readPredictionsParquet(path, f.ReaderAt(), f.Size(), maxHeld)
	}
	return readPredictionsNPZ(path, f.ReaderAt(), f.Size(), maxHeld)
}

// predictionLayout is where the columns of a predictions file are, by
// index into its column names.
type predictionLayout struct {
	id, label int
	// scores are the score column (binary) or the p_<class> columns
	// (multi-class), in file order.
	scores  []int
	names   []string // of the scores columns
	classes []string // multi-class
}

// multiclass reports whether the layout is a multi-class one.
func (l predictionLayout) multiclass() bool { return l.classes != nil }

// predictionsHelp says what columns a predictions file has; kind is what
// the format calls a column.
func predictionsHelp(kind string) string {
	return fmt.Sprintf("a predictions file has the %[1]ss sample_id, label and score (binary), "+
		"or sample_id, label and a p_<class> %[1]s for each class, at least two (multi-class)", kind)
}

// findPredictionColumns locates the columns of a predictions file from
// its column names; kind is what the format calls a column ("column",
// "key", "array"). It returns a problem for the user, or "".
func findPredictionColumns(names []string, kind string) (predictionLayout, string) {
	lay := predictionLayout{id: -1, label: -1}
	score := -1
	var (
		probs   []int
		classes []string
	)
	seen := make(map[string]int, len(names))
	class := make(map[string]int)
	for i, name := range names {
		if problem := input.NameProblem(names, i, kind, seen); problem != "" {
			return lay, problem
		}
		switch {
		case name == "sample_id":
			lay.id = i
		case name == "label":
			lay.label = i
		case name == "score":
			score = i
		case strings.HasPrefix(name, "p_"):
			c := strings.TrimSpace(name[2:])
			if c == "" {
				return lay, fmt.Sprintf("%s %q names no class; a probability %s is named p_ and its class, such as p_cat", kind, name, kind)
			}
			if len(c) > input.MaxNameBytes {
				return lay, fmt.Sprintf("%s %d: the class name is %d bytes long; at most %d are allowed", kind, i+1, len(c), input.MaxNameBytes)
			}
			if p := input.TextProblem("class name", c); p != "" {
				return lay, fmt.Sprintf("%s %d: %s", kind, i+1, p)
			}
			if j, dup := class[c]; dup {
				return lay, fmt.Sprintf("%ss %q and %q name the same class %q", kind, names[j], name, c)
			}
			class[c] = i
			probs = append(probs, i)
			classes = append(classes, c)
			if len(classes) > maxClasses {
				return lay, fmt.Sprintf("more than %d p_<class> %ss; at most %d classes are supported", maxClasses, kind, maxClasses)
			}
		default:
			return lay, fmt.Sprintf("%s %q is not allowed: %s", kind, name, predictionsHelp(kind))
		}
	}
	switch {
	case lay.id < 0:
		return lay, fmt.Sprintf("no %q %s among %s; %s", "sample_id", kind, input.QuoteList(names), predictionsHelp(kind))
	case lay.label < 0:
		return lay, fmt.Sprintf("no %q %s among %s; %s", "label", kind, input.QuoteList(names), predictionsHelp(kind))
	case score >= 0 && len(probs) > 0:
		return lay, fmt.Sprintf("both a %q %s and p_<class> %ss; %s, not both", "score", kind, kind, predictionsHelp(kind))
	case score >= 0:
		lay.scores, lay.names = []int{score}, []string{"score"}
	case len(probs) == 0:
		return lay, fmt.Sprintf("neither a %q %s nor p_<class> %ss; %s", "score", kind, kind, predictionsHelp(kind))
	case len(probs) == 1:
		return lay, fmt.Sprintf("one p_<class> %s, %q; a multi-class file has one for each class, at least two, and a binary file a %q %s instead",
			kind, names[probs[0]], "score", kind)
	default:
		lay.scores, lay.classes = probs, classes
		for _, i := range probs {
			lay.names = append(lay.names, names[i])
		}
	}
	return lay, ""
}

// Per-entry costs of the memory that predictions hold, beside the bytes of
// the IDs and the capacity of the slices: an entry of the duplicate
// check's map[string]int64, measured as evaluate's heldMapEntry is.
const heldPredictionEntry = 56

// Bytes per element of the slices of Predictions.
const (
	heldIDHeader = 16 // a string header in SampleIDs
	heldLabel    = 4  // an int32 in Labels
	heldScore    = 8  // a float64 in Scores
)

// predictionSet collects the rows of a predictions file as a format's
// reader decodes them, and checks what does not depend on the format: the
// sample ID, the label, the scores, the sum of a row of probabilities,
// duplicates, and the memory held.
type predictionSet struct {
	p       Predictions
	file    input.Location // the file, what a row is called and a column
	lay     predictionLayout
	classes map[string]int32 // multi-class: class name → index
	first   map[string]int64 // sample ID → its line or row
	row     []float64        // the current row's scores
	held    int64
	maxHeld int64
}

func newPredictionSet(file input.Location, lay predictionLayout, maxHeld int64) *predictionSet {
	s := &predictionSet{
		p:       Predictions{Path: file.Path, Task: TaskBinary, Classes: []string{"0", "1"}, Probabilities: true},
		file:    file,
		lay:     lay,
		first:   map[string]int64{},
		row:     make([]float64, len(lay.scores)),
		maxHeld: maxHeld,
	}
	if lay.multiclass() {
		s.p.Task, s.p.Classes = TaskMulticlass, lay.classes
		s.classes = make(map[string]int32, len(lay.classes))
		for i, c := range lay.classes {
			s.classes[c] = int32(i)
		}
	}
	return s
}

// at locates the line or row pos.
func (s *predictionSet) at(pos int64) input.Location {
	a := s.file
	a.Pos = pos
	return a
}

// unit is what the format calls a row: "line" or "row".
func (s *predictionSet) unit() string { return cmp.Or(s.file.Unit, "line") }

// sample checks the sample ID of the row at a, and returns a naming it.
func (s *predictionSet) sample(a input.Location, id string) (input.Location, error) {
	if id == "" {
		return a, s.missingSample(a)
	}
	a = a.WithSample(id)
	if problem := input.IDProblem("sample ID", id); problem != "" {
		return a, a.WithColumn("sample_id").Errorf(ErrBadPredictions, "%s", problem)
	}
	return a, nil
}

// missingSample is the error of a row without a sample ID: empty, white
// space only, or null.
func (s *predictionSet) missingSample(a input.Location) error {
	return a.WithColumn("sample_id").Errorf(ErrBadPredictions, "sample ID missing; every %s needs one", s.unit())
}

// Kinds of labelValue.
const (
	labelText    = 't'
	labelNumber  = 'n'
	labelBool    = 'b'
	labelMissing = 'z'
	labelOther   = '?'
)

// labelValue is a label as a format decoded it.
type labelValue struct {
	kind byte
	// text is the text of a labelText, without the white space around it,
	// and the decimal text of a labelNumber, which names its class; it may
	// be empty for a labelNumber of a binary file, which is a number only.
	text string
	// raw is what the file holds, when a message is to show that: a JSON
	// number as written, what a labelOther is ("an array").
	raw   string
	num   float64 // labelNumber
	truth bool    // labelBool
}

func textLabel(s string) labelValue {
	t := input.TrimID(s)
	if t == "" {
		return labelValue{kind: labelMissing}
	}
	return labelValue{kind: labelText, text: t}
}

// numberLabel is the label v, whose decimal text is text, or "" for a
// binary file's label.
func numberLabel(v float64, text string) labelValue {
	return labelValue{kind: labelNumber, num: v, text: text}
}

// show is how a message shows the label: text quoted, a number as the file
// has it, or what the value is.
func (v labelValue) show() string {
	switch v.kind {
	case labelText:
		return strconv.Quote(v.text)
	case labelNumber:
		return cmp.Or(v.raw, v.text, floatText(v.num))
	case labelBool:
		return strconv.FormatBool(v.truth)
	}
	return v.raw
}

// floatText is the shortest decimal text of a label or score decoded as a
// float, without a fraction when it is a whole number (2, not 2.0), so that
// a label 2.0 names the class of p_2.
func floatText(v float64) string {
	if v == 0 {
		return "0" // and not -0
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// label returns the class index of the label v of the row at a.
func (s *predictionSet) label(a input.Location, v labelValue) (int32, error) {
	a = a.WithColumn("label")
	if v.kind == labelMissing {
		return 0, a.Errorf(ErrBadPredictions, "label missing")
	}
	if s.lay.multiclass() {
		if v.kind == labelText || v.kind == labelNumber {
			if c, ok := s.classes[v.text]; ok {
				return c, nil
			}
			return 0, a.Errorf(ErrBadPredictions, "label %s is not one of the classes %s (the names of the p_<class> %ss)",
				v.show(), input.QuoteList(s.p.Classes), cmp.Or(s.file.ColumnNoun, "column"))
		}
		return 0, a.Errorf(ErrBadPredictions, "expected a class name, got %s", v.show())
	}
	switch v.kind {
	case labelBool:
		if v.truth {
			return 1, nil
		}
		return 0, nil
	case labelText:
		x, err := input.ParseNumber(v.text)
		switch {
		case err == nil && x == 0 && !input.LostInReal(v.text, x):
			return 0, nil
		case err == nil && x == 1:
			return 1, nil
		}
	case labelNumber:
		switch v.num {
		case 0:
			return 0, nil
		case 1:
			return 1, nil
		}
	default:
		return 0, a.Errorf(ErrBadPredictions, "expected 0 or 1, got %s", v.show())
	}
	return 0, a.Errorf(ErrBadPredictions, "label %s is not 0 or 1", v.show())
}

// noun is what a message calls a score.
func (s *predictionSet) noun() string {
	if s.lay.multiclass() {
		return "probability"
	}
	return "score"
}

// scoreMissing is the error of a missing score i of the row at a.
func (s *predictionSet) scoreMissing(a input.Location, i int) error {
	return a.WithColumn(s.lay.names[i]).Errorf(ErrBadPredictions, "%s missing", s.noun())
}

// scoreText checks the text of score i of the row at a, as Python, NumPy
// and pandas write numbers (input.ParseNumber), and keeps it.
func (s *predictionSet) scoreText(a input.Location, i int, text string) error {
	t := strings.TrimSpace(text)
	if t == "" {
		return s.scoreMissing(a, i)
	}
	return s.scoreNumber(a, i, t, true)
}

// scoreNumber checks score i of the row at a, the number written as t,
// which a message shows quoted or not, and keeps it.
func (s *predictionSet) scoreNumber(a input.Location, i int, t string, quote bool) error {
	v, err := input.ParseNumber(t)
	shown := func() string {
		if quote {
			return strconv.Quote(t)
		}
		return t
	}
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange):
		return a.WithColumn(s.lay.names[i]).Errorf(ErrBadPredictions, "%s %s is out of range", s.noun(), shown())
	case err != nil:
		return a.WithColumn(s.lay.names[i]).Errorf(ErrBadPredictions, "%s is not a number", shown())
	}
	if problem := s.scoreProblem(v); problem != "" {
		return a.WithColumn(s.lay.names[i]).Errorf(ErrBadPredictions, problem, shown())
	}
	s.row[i] = v
	return nil
}

// score checks score i of the row at a, v, decoded from a binary format or
// spelled as text stands for it, and keeps it. A message shows it as text,
// or as floatText(v) when text is "".
func (s *predictionSet) score(a input.Location, i int, v float64, text string) error {
	if problem := s.scoreProblem(v); problem != "" {
		return a.WithColumn(s.lay.names[i]).Errorf(ErrBadPredictions, problem, cmp.Or(text, floatText(v)))
	}
	s.row[i] = v
	return nil
}

// scoreProblem returns the problem with the score v, a format with a %s
// for the score as a message shows it, or "".
func (s *predictionSet) scoreProblem(v float64) string {
	switch {
	case s.lay.multiclass() && !(v >= 0 && v <= 1): // NaN too
		return "probability %s is not in [0, 1]"
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "score %s is not finite; a score is a finite number, a probability or a logit"
	}
	return ""
}

// add keeps the row at a, of the sample id with the class label and the
// scores that score kept. It refuses a row of probabilities that does not
// sum to 1, a sample seen before, and a row that takes the memory held past
// its bound.
func (s *predictionSet) add(a input.Location, id string, label int32) error {
	if s.lay.multiclass() {
		// Summed in order, as classify checks a row.
		var sum float64
		for _, p := range s.row {
			sum += p
		}
		if math.Abs(sum-1) > classify.RowSumTolerance {
			return a.Errorf(ErrBadPredictions, "probabilities sum to %.12g, not 1 within %g", sum, classify.RowSumTolerance)
		}
	} else if v := s.row[0]; v < 0 || v > 1 {
		s.p.Probabilities = false
	}
	if first, dup := s.first[id]; dup {
		return a.WithColumn("sample_id").Errorf(ErrBadPredictions, "the sample appears twice, at %ss %d and %d; a predictions file has one %s per sample",
			s.unit(), first, a.Pos, s.unit())
	}
	s.first[id] = a.Pos
	p := &s.p
	ids, labels, scores := cap(p.SampleIDs), cap(p.Labels), cap(p.Scores)
	p.SampleIDs = append(p.SampleIDs, id)
	p.Labels = append(p.Labels, label)
	p.Scores = append(p.Scores, s.row...)
	s.held += int64(len(id)+heldPredictionEntry) +
		int64((cap(p.SampleIDs)-ids)*heldIDHeader+(cap(p.Labels)-labels)*heldLabel+(cap(p.Scores)-scores)*heldScore)
	if s.held > s.maxHeld {
		return a.Errorf(ErrBadPredictions, "the predictions held in memory pass %s; verdict reads a predictions file whole: split the evaluation set into parts",
			input.ByteSize(s.maxHeld))
	}
	return nil
}

// done returns the predictions, or an error when there are none; empty
// says what the file holds then.
func (s *predictionSet) done(empty string) (*Predictions, error) {
	if len(s.p.SampleIDs) == 0 {
		return nil, input.Location{Path: s.file.Path}.Errorf(ErrBadPredictions, "no predictions: %s", empty)
	}
	return &s.p, nil
}

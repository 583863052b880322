package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"

	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/digest"
)

// Tasks of an evaluation of predictions.
const (
	TaskBinary     = "binary"
	TaskMulticlass = "multiclass"
)

// PredictionInfo describes an evaluation of a classifier's predictions: its
// task and classes, and the parameters its metrics were computed with.
type PredictionInfo struct {
	Task string // TaskBinary or TaskMulticlass
	// Classes names the classes: {"0", "1"} for a binary task; for a
	// multi-class one, in the order of each sample's probabilities.
	Classes []string
	// Threshold is the score at or above which a binary prediction is
	// positive (accuracy, precision, recall, f1), and Bins the number of
	// equal-width bins of ece; zero for a multi-class task.
	Threshold float64
	Bins      int
}

// K is the number of scores per sample: 1 for a binary task, else one
// probability per class.
func (p *PredictionInfo) K() int {
	if p.Task == TaskBinary {
		return 1
	}
	return len(p.Classes)
}

// PredictionSet is a classifier's predictions to log, with the metrics
// computed from them over all samples.
type PredictionSet struct {
	PredictionInfo
	SampleIDs []string
	// Labels holds each sample's class, an index into Classes.
	Labels []int32
	// Scores holds K() scores per sample, row-major: a binary classifier's
	// score, or one probability per class.
	Scores []float64
	// Metrics names the metrics in Values, in the order to show them.
	Metrics []string
	Values  map[string]float64
}

// maxClasses bounds the classes of a multi-class task.
const maxClasses = 10_000

// check validates the set as the store will hold it.
func (p *PredictionSet) check() error {
	switch p.Task {
	case TaskBinary:
		if !slices.Equal(p.Classes, []string{"0", "1"}) {
			return fmt.Errorf("%w: a binary task's classes are 0 and 1, not %q", ErrBadInput, p.Classes)
		}
	case TaskMulticlass:
		if len(p.Classes) < 2 || len(p.Classes) > maxClasses {
			return fmt.Errorf("%w: a multi-class task has 2 to %d classes, not %d", ErrBadInput, maxClasses, len(p.Classes))
		}
		seen := make(map[string]bool, len(p.Classes))
		for _, c := range p.Classes {
			if err := checkName("class name", c); err != nil {
				return &InputError{Problem: err.Error()}
			}
			if seen[c] {
				return &InputError{Problem: fmt.Sprintf("class %s appears twice", namePreview(c))}
			}
			seen[c] = true
		}
	default:
		return fmt.Errorf("%w: task %q: want %s or %s", ErrBadInput, p.Task, TaskBinary, TaskMulticlass)
	}
	n, k := len(p.SampleIDs), p.K()
	if n == 0 {
		return &InputError{Problem: "no rows: the input holds no predictions"}
	}
	if len(p.Labels) != n || len(p.Scores) != n*k {
		return fmt.Errorf("%w: %d sample IDs, %d labels and %d scores; %d scores a sample", ErrBadInput, n, len(p.Labels), len(p.Scores), k)
	}
	for i, id := range p.SampleIDs {
		if err := checkSampleID(id); err != nil {
			return &InputError{Where: "row " + strconv.Itoa(i+1), Problem: err.Error()}
		}
		if l := p.Labels[i]; l < 0 || int(l) >= len(p.Classes) {
			return &InputError{Where: "row " + strconv.Itoa(i+1), SampleID: id, Problem: fmt.Sprintf("label %d is not a class index from 0 to %d", l, len(p.Classes)-1)}
		}
		for _, v := range p.Scores[i*k : (i+1)*k] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &InputError{Where: "row " + strconv.Itoa(i+1), SampleID: id, Problem: fmt.Sprintf("score %v is not a finite number", v)}
			}
		}
	}
	if len(p.Metrics) == 0 {
		return fmt.Errorf("%w: no metrics computed from the predictions", ErrBadInput)
	}
	for _, m := range p.Metrics {
		if _, ok := p.Values[m]; !ok {
			return fmt.Errorf("%w: metric %s has no value", ErrBadInput, namePreview(m))
		}
	}
	if p.Task == TaskBinary && (math.IsNaN(p.Threshold) || math.IsInf(p.Threshold, 0) || p.Bins < 1) {
		return fmt.Errorf("%w: a binary task needs a finite threshold and at least one bin, not %v and %d", ErrBadInput, p.Threshold, p.Bins)
	}
	return nil
}

// LogPredictions stores one evaluation of a classifier's predictions, in a
// single transaction: the evaluation, with p.Values as its aggregates, and
// every sample's label and scores in double precision in its partition of
// predictions. The evaluation set is fingerprinted by its labels (each
// sample ID with its class, and the class names), so that only models
// scored against the same labels pair; ev.TargetFingerprint must be empty.
// ev.LowerIsBetter names the metrics where lower is better. Bad input
// returns an error wrapping ErrBadInput (an *InputError naming the row, or
// a *DuplicateError) and leaves the database unchanged. A second log of
// the same predictions for the same run, or with the same idempotency key,
// returns the first evaluation with Existing set.
func (s *Store) LogPredictions(ctx context.Context, ev NewEvaluation, p *PredictionSet) (*Logged, error) {
	start := time.Now()
	if ev.TargetFingerprint != "" {
		return nil, fmt.Errorf("%w: an evaluation of predictions is fingerprinted by its labels; it takes no target fingerprint", ErrBadInput)
	}
	if len(ev.Labels) > 0 {
		return nil, fmt.Errorf("%w: an evaluation of predictions carries its labels; it takes no separate labels", ErrBadInput)
	}
	if err := checkMetricNames(p.Metrics, ev.LowerIsBetter); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if found, err := s.startLog(ctx, &ev); found != nil || err != nil {
		return found, err
	}
	info := p.PredictionInfo
	info.Classes = slices.Clone(p.Classes)
	if info.Task != TaskBinary {
		info.Threshold, info.Bins = 0, 0
	}
	fp := fingerprint.NewLabels()
	fp.AddClasses(info.Classes)
	l := &load{content: digest.New(), metrics: p.Metrics}
	l.content.Predictions(info.Task, info.Threshold, info.Bins, info.Classes)
	k := info.K()
	for i, id := range p.SampleIDs {
		fp.AddLabel([]byte(id), info.Classes[p.Labels[i]])
		l.content.Prediction(id, p.Labels[i], p.Scores[i*k:(i+1)*k])
	}
	n := int64(len(p.SampleIDs))
	if ev.Protocol.EvalDraws <= 0 {
		ev.Protocol.EvalDraws = 1
	}
	var out *Logged
	err := s.transact(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('evaluations', 'id'))`).Scan(&l.id); err != nil {
			return fmt.Errorf("allocate evaluation ID: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT verdict_units.create_predictions($1)`, l.id); err != nil {
			return fmt.Errorf("create partition: %w", err)
		}
		table := pgx.Identifier{"verdict_units", fmt.Sprintf("predictions_%d", l.id)}
		row := make([]any, 3)
		if _, err := tx.CopyFrom(ctx, table, []string{"sample_id", "label", "scores"},
			pgx.CopyFromFunc(func() ([]any, error) {
				i := l.rows
				if i == n {
					return nil, nil
				}
				l.rows++
				if l.rows%65536 == 0 && ev.Progress != nil {
					ev.Progress(l.rows)
				}
				row[0], row[1], row[2] = p.SampleIDs[i], int16(p.Labels[i]), p.Scores[int(i)*k:(int(i)+1)*k]
				return row, nil
			})); err != nil {
			return fmt.Errorf("load predictions: %w", err)
		}
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '256MB'; SAVEPOINT before_pk`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT verdict_units.index_predictions($1)`, l.id); err != nil {
			if isUniqueViolation(err) {
				return duplicatePrediction(p.SampleIDs)
			}
			return fmt.Errorf("index predictions: %w", err)
		}
		res := &Logged{Evaluation: Evaluation{
			ID:              l.id,
			Experiment:      ev.Experiment,
			Run:             ev.Run,
			EvalSet:         ev.EvalSet,
			Fingerprint:     fp.Sum(),
			FingerprintKind: fingerprint.KindLabels,
			Metrics:         p.Metrics,
			LowerIsBetter:   ev.LowerIsBetter,
			Aggregates:      make(map[string]float64, len(p.Metrics)),
			Rows:            n,
			ScoredRows:      n,
			Units:           n,
			Protocol:        ev.Protocol,
			Metadata:        ev.Metadata,
			IdempotencyKey:  ev.IdempotencyKey,
			SoftwareVersion: Version(),
			Predictions:     &info,
		}}
		for _, m := range p.Metrics {
			res.Aggregates[m] = p.Values[m]
		}
		out = res
		if err := s.insertEvaluation(ctx, tx, ev, l, res); err != nil {
			return err
		}
		if res.Existing {
			return errRollback
		}
		if _, err := tx.Exec(ctx, `SELECT verdict_units.attach_predictions($1)`, l.id); err != nil {
			return fmt.Errorf("attach predictions: %w", err)
		}
		return nil
	})
	return s.settleLog(ctx, ev, out, err, start)
}

// duplicatePrediction finds the sample ID that occurs twice.
func duplicatePrediction(ids []string) error {
	seen := make(map[string]int, len(ids))
	for i, id := range ids {
		if first, ok := seen[id]; ok {
			return &InputError{Where: fmt.Sprintf("rows %d and %d", first+1, i+1), SampleID: id, Problem: "the sample ID appears twice"}
		}
		seen[id] = i
	}
	return fmt.Errorf("%w: a sample ID appears twice", ErrBadInput)
}

// PredictionPairs are two evaluations' predictions aligned by sample ID,
// in sample ID order.
type PredictionPairs struct {
	Left, Right *Evaluation
	SampleIDs   []string
	// Labels holds each paired sample's class, an index into the classes.
	Labels []int32
	// Left and Right hold K scores per paired sample, row-major.
	LeftScores, RightScores []float64
	K                       int
	// LeftOnly and RightOnly count samples found in one evaluation only.
	LeftOnly, RightOnly int64
}

// PairPredictions is Store.PairPredictions within the transaction.
func (t *Tx) PairPredictions(ctx context.Context, leftID, rightID int64, intersect bool) (*PredictionPairs, error) {
	return pairPredictions(ctx, t.tx, leftID, rightID, intersect)
}

// PairPredictions joins two evaluations of predictions by sample ID inside
// PostgreSQL, as a merge of their partitions' primary keys. Both must be of
// the same task and classes. Evaluations of different evaluation sets
// (different labels) are refused with ErrNotComparable unless intersect is
// true; then the samples both hold are paired, and a sample whose label
// differs between the two is refused.
func (s *Store) PairPredictions(ctx context.Context, leftID, rightID int64, intersect bool) (*PredictionPairs, error) {
	var p *PredictionPairs
	err := s.transact(ctx, func(tx pgx.Tx) error {
		var err error
		p, err = pairPredictions(ctx, tx, leftID, rightID, intersect)
		return err
	})
	return p, err
}

// ErrNotPredictions is returned for an evaluation of per-unit values where
// one of predictions is needed.
var ErrNotPredictions = errors.New("not an evaluation of predictions")

// ErrPredictions is returned where per-unit values are needed (a diff of
// the units that moved most, a ranking of runs unit by unit) and an
// evaluation holds a classifier's predictions, whose metrics belong to the
// whole set rather than to each sample.
var ErrPredictions = errors.New("an evaluation of predictions has no per-unit values")

// perUnit returns ErrPredictions for an evaluation of predictions.
func perUnit(e *Evaluation) error { return e.Pairable() }

// Pairable returns nil when e has per-unit values to pair: an error
// wrapping ErrPredictions for an evaluation of predictions, and ErrNoUnits
// for one logged with its aggregates only, each saying why.
func (e *Evaluation) Pairable() error {
	if e.Predictions != nil {
		return fmt.Errorf("%w: evaluation %d (%s) holds a classifier's predictions, whose metrics are computed over the whole set; compare it with another evaluation of predictions",
			ErrPredictions, e.ID, describeSet(e))
	}
	if e.AggregatesOnly {
		return fmt.Errorf("%w: evaluation %d (%s) was logged with its aggregates only (means and counts), so it has no units to pair; log it with its per-unit values to compare it",
			ErrNoUnits, e.ID, describeSet(e))
	}
	return nil
}

// metricIndex is the 0-based column of metric among e's per-unit values.
func metricIndex(e *Evaluation, metric string) (int, error) {
	if i := slices.Index(e.Metrics, metric); i >= 0 {
		return i, nil
	}
	if _, ok := e.Aggregates[metric]; ok {
		return 0, fmt.Errorf("%w: %q of evaluation %d is a whole-set metric, with one value for the whole evaluation and none per unit, so it cannot be paired unit by unit (compare it with a bootstrap that recomputes it on resampled users)",
			ErrNoUnits, metric, e.ID)
	}
	return 0, fmt.Errorf("%w: evaluation %d has no %q (it has %s)", ErrUnknownMetric, e.ID, metric, strings.Join(e.Metrics, ", "))
}

func pairPredictions(ctx context.Context, tx pgx.Tx, leftID, rightID int64, intersect bool) (*PredictionPairs, error) {
	left, err := getEvaluation(ctx, tx, leftID)
	if err != nil {
		return nil, fmt.Errorf("evaluation %d: %w", leftID, err)
	}
	right, err := getEvaluation(ctx, tx, rightID)
	if err != nil {
		return nil, fmt.Errorf("evaluation %d: %w", rightID, err)
	}
	for _, e := range []*Evaluation{left, right} {
		if e.Predictions == nil {
			return nil, fmt.Errorf("%w: evaluation %d (%s) holds per-unit values", ErrNotPredictions, e.ID, describeSet(e))
		}
	}
	if left.EvalSetID != right.EvalSetID && !intersect {
		return nil, fmt.Errorf("%w: evaluation %d (%s) and evaluation %d (%s) were scored against different labels",
			ErrNotComparable, left.ID, describeSet(left), right.ID, describeSet(right))
	}
	lp, rp := left.Predictions, right.Predictions
	if lp.Task != rp.Task || !slices.Equal(lp.Classes, rp.Classes) {
		return nil, fmt.Errorf("%w: evaluation %d is a %s task with classes %q and evaluation %d a %s task with classes %q",
			ErrNotComparable, left.ID, lp.Task, lp.Classes, right.ID, rp.Task, rp.Classes)
	}
	k := lp.K()
	p := &PredictionPairs{Left: left, Right: right, K: k}
	// An inner merge join of the two primary keys yields the paired
	// samples in order with no sort (see pairMetrics); the samples of one
	// side only are its samples less the paired.
	query := `
		SELECT l.sample_id, l.label, l.scores, r.label, r.scores
		FROM ` + predictionsName(leftID) + ` l
		JOIN ` + predictionsName(rightID) + ` r ON r.sample_id = l.sample_id
		WHERE l.evaluation_id = $1 AND r.evaluation_id = $2
		ORDER BY l.sample_id`
	n := min(left.Units, right.Units, 1<<31)
	p.SampleIDs, p.Labels = make([]string, 0, n), make([]int32, 0, n)
	p.LeftScores, p.RightScores = make([]float64, 0, n*int64(k)), make([]float64, 0, n*int64(k))
	err = func() error {
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'; SET LOCAL enable_hashjoin = off; SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, query, pgx.QueryResultFormats{pgx.BinaryFormatCode}, leftID, rightID)
		if err != nil {
			return err
		}
		defer rows.Close()
		// Decoded in place, as pairMetrics decodes: the sample IDs into
		// shared arenas, the scores straight into the slices.
		var arena []byte
		for rows.Next() {
			raw := rows.RawValues()
			if len(raw[1]) != 2 || len(raw[3]) != 2 {
				return fmt.Errorf("sample %q: a label is not a smallint", raw[0])
			}
			ll, rl := int16(binary.BigEndian.Uint16(raw[1])), int16(binary.BigEndian.Uint16(raw[3]))
			if cap(arena)-len(arena) < len(raw[0]) {
				arena = make([]byte, 0, max(1<<20, len(raw[0])))
			}
			start := len(arena)
			arena = append(arena, raw[0]...)
			id := unsafe.String(unsafe.SliceData(arena[start:]), len(raw[0]))
			if ll != rl {
				return fmt.Errorf("%w: sample %q is labelled %s in evaluation %d and %s in evaluation %d",
					ErrNotComparable, id, lp.Classes[ll], left.ID, lp.Classes[rl], right.ID)
			}
			var ln, rn int
			if p.LeftScores, ln, err = appendFloat8s(p.LeftScores, raw[2]); err != nil {
				return fmt.Errorf("sample %q: %w", id, err)
			}
			if p.RightScores, rn, err = appendFloat8s(p.RightScores, raw[4]); err != nil {
				return fmt.Errorf("sample %q: %w", id, err)
			}
			if ln != k || rn != k {
				return fmt.Errorf("sample %q has %d and %d scores, not %d", id, ln, rn, k)
			}
			p.SampleIDs = append(p.SampleIDs, id)
			p.Labels = append(p.Labels, int32(ll))
		}
		if err := rows.Err(); err != nil {
			return err
		}
		paired := int64(len(p.SampleIDs))
		p.LeftOnly, p.RightOnly = left.Units-paired, right.Units-paired
		if p.LeftOnly < 0 || p.RightOnly < 0 {
			return fmt.Errorf("%d samples paired, more than the evaluations' %d and %d", paired, left.Units, right.Units)
		}
		return nil
	}()
	if err != nil {
		if errors.Is(err, ErrNotComparable) {
			return nil, err
		}
		return nil, fmt.Errorf("pair predictions of evaluations %d and %d: %w", leftID, rightID, err)
	}
	return p, nil
}

// appendFloat8s appends the elements of a one-dimensional double
// precision[] without NULLs, in PostgreSQL's binary array format (see
// float4At), to dst, and returns how many there were.
func appendFloat8s(dst []float64, arr []byte) ([]float64, int, error) {
	if len(arr) < 12 {
		return dst, 0, fmt.Errorf("scores: a %d-byte array", len(arr))
	}
	switch dims := binary.BigEndian.Uint32(arr); {
	case dims == 0:
		return dst, 0, nil
	case dims != 1 || len(arr) < 20 || binary.BigEndian.Uint32(arr[4:]) != 0:
		return dst, 0, fmt.Errorf("scores: not a one-dimensional array without NULLs")
	}
	n := int(binary.BigEndian.Uint32(arr[12:]))
	if len(arr) != 20+12*n {
		return dst, 0, fmt.Errorf("scores: %d bytes for %d doubles", len(arr), n)
	}
	for at := 20; at < len(arr); at += 12 {
		if binary.BigEndian.Uint32(arr[at:]) != 8 {
			return dst, 0, fmt.Errorf("scores: an element is not an 8-byte double")
		}
		dst = append(dst, math.Float64frombits(binary.BigEndian.Uint64(arr[at+4:])))
	}
	return dst, n, nil
}

// predictionsName is the sanitized name of an evaluation's partition of
// predictions.
func predictionsName(id int64) string {
	return pgx.Identifier{"verdict_units", fmt.Sprintf("predictions_%d", id)}.Sanitize()
}

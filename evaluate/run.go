package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

// RunOptions say how Run evaluates rankings, and where the results go.
type RunOptions struct {
	// Metrics to compute; none means DefaultMetrics at the rankings' width.
	Metrics []Metric
	// Workers is how many goroutines score batches; 0 means GOMAXPROCS.
	Workers int
	// PerUser, when not "", is the path of a CSV file to write every row
	// with targets to, in input order: its sample ID and one value per
	// metric key, as scores.Writer writes them.
	PerUser string
	// Store, when not nil, is where the evaluation is logged as Log
	// describes it, with its per-user values, while it is computed. Run sets
	// the protocol's cutoffs and required k from the metrics.
	Store *store.Store
	Log   store.NewEvaluation
	// OnBatch, when not nil, is called once per scored batch with its
	// number of rows (with targets or without), in input order, from one
	// goroutine at a time, after the batch is scored: a progress count
	// that needs no locking. It is called on the goroutine consuming the
	// scores, so a slow OnBatch slows the evaluation.
	OnBatch func(rows int)
	// ServiceLogErr, when not nil, reports the error that turned the
	// service log (--log-every) off, or nil: a log that failed before the
	// evaluation is logged is recorded in its metadata, under
	// "service_log_error", and in Result.ServiceLogError.
	ServiceLogErr func() error
	// WholeSet are metrics of the whole evaluation, such as
	// CatalogueCoverage: their values join the aggregates, and nothing
	// else (see WholeSetMetric). Their keys must differ from the per-user
	// metrics'.
	WholeSet []WholeSetMetric
	// WholeSetSpecs are whole-set metrics named by spec (ParseMetricSpecs)
	// that need the input to be made: Run makes them once it has src,
	// after those of WholeSet, the coverage for a catalogue of
	// CatalogueSize items, or of the size src gives (CatalogueSizer, the
	// columns of NumPy targets) when CatalogueSize is 0. Without either,
	// Run refuses them with an error of package request naming
	// catalogue_size. Request.Options sets them when catalogue_size is not
	// given.
	WholeSetSpecs []WholeSetSpec
	// CatalogueSize is the catalogue's size for WholeSetSpecs; 0 asks src.
	CatalogueSize int
	// Debug selects scored rows to describe in detail in Result.Debug,
	// and, when the evaluation is logged, to store with it (as many of
	// them as fit in store.MaxDebugBytes).
	Debug DebugSelection
	// NoPerUser, with Store, logs only the evaluation's aggregates and
	// counts, computed here, and its whole-set values and debug rows, with
	// no per-unit values (store.LogAggregates): for monitoring, since such
	// an evaluation cannot be paired with another. Every row is scored
	// all the same, and PerUser is written when asked for.
	NoPerUser bool
}

// Result is what Run computed, and logged when it was asked to. Its JSON
// form is the output of `verdict evaluate --format json`.
type Result struct {
	Keys              []string           `json:"metrics"`       // the metrics' keys, in order
	Means             map[string]float64 `json:"aggregates"`    // each key's mean over the rows with targets
	Rows              int64              `json:"n_rows"`        // every row of the input
	ScoredRows        int64              `json:"n_scored_rows"` // the rows with targets
	Units             int64              `json:"n_units"`       // their distinct sample IDs
	RequiredK         int                `json:"required_k"`    // the largest rank any metric looks at
	TargetFingerprint string             `json:"fingerprint"`   // of the targets read (fingerprint_kind "targets")
	FingerprintKind   string             `json:"fingerprint_kind"`
	// EvaluationID is the ID of the logged evaluation, nil when it was not
	// logged; Existing reports that the same evaluation was already
	// stored, so nothing was written.
	EvaluationID *int64        `json:"evaluation_id"`
	Existing     bool          `json:"existing,omitempty"`
	Logged       *store.Logged `json:"-"`
	// WholeSetKeys are the keys of the whole-set metrics, whose values are
	// in Means and nowhere per user.
	WholeSetKeys []string `json:"whole_set_metrics,omitempty"`
	// Debug describes the rows RunOptions.Debug selected, in input order;
	// DebugMissing lists the sample IDs it asked for that no row with
	// targets has. DebugStored is how many of the rows were stored with
	// the logged evaluation: the leading ones that fit in
	// store.MaxDebugBytes.
	Debug        []DebugRow `json:"debug_rows,omitempty"`
	DebugMissing []string   `json:"debug_missing_ids,omitempty"`
	DebugStored  int        `json:"debug_rows_stored,omitempty"`
	// AggregatesOnly reports an evaluation logged without per-unit values
	// (RunOptions.NoPerUser).
	AggregatesOnly bool `json:"aggregates_only,omitempty"`
	// ServiceLogError is why the service log stopped, when it failed
	// after it started (RunOptions.ServiceLogErr, NoteServiceLog).
	ServiceLogError string `json:"service_log_error,omitempty"`
}

// NoteServiceLog records err, the service log's error once the run is
// over, unless an earlier one was recorded; nil records nothing.
func (r *Result) NoteServiceLog(err error) {
	if r != nil && err != nil && r.ServiceLogError == "" {
		r.ServiceLogError = err.Error()
	}
}

// Run evaluates src with the metrics of opts: the work of `verdict
// evaluate`. It scores the rows on several goroutines, writes them to the
// per-user file and logs them to the store when asked, and returns the
// aggregates. src is read to its end but not closed. When neither
// whole-set metrics nor debug rows read the predicted items, Run has the
// readers of this package leave them off the batches, which spares their
// copy.
//
// Errors about the input wrap ErrBadInput, and a metric value that is not
// finite ErrBadValue; a whole-set metric without keys or whose key is
// another metric's is an error wrapping ErrBadMetric, and a debug
// selection asking for too much one wrapping ErrBadDebug. Errors of the
// store are its own, as LogEvaluation and LogAggregates return them.
func Run(ctx context.Context, src Rankings, opts RunOptions) (*Result, error) {
	metrics := opts.Metrics
	if len(metrics) == 0 {
		metrics = DefaultMetrics(src.Width())
	}
	ev, err := NewEvaluator(metrics)
	if err != nil {
		return nil, err
	}
	if opts.WholeSet, err = wholeSetMetrics(src, opts); err != nil {
		return nil, err
	}
	wholeKeys, err := wholeSetKeys(ev.Keys(), opts.WholeSet)
	if err != nil {
		return nil, err
	}
	if err := opts.Debug.check(); err != nil {
		return nil, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := &Result{Keys: ev.Keys(), RequiredK: ev.RequiredK(), WholeSetKeys: wholeKeys}
	for _, m := range opts.WholeSet {
		res.RequiredK = max(res.RequiredK, m.RequiredK())
	}
	cfg := scoringConfig{wholeSet: opts.WholeSet}
	if d, ok := src.(itemDropper); ok && len(opts.WholeSet) == 0 && opts.Debug.empty() {
		d.dropItems() // nothing reads them: spare the readers the copy
	}
	if !opts.Debug.empty() {
		cfg.debug = &debugRows{keys: ev.Keys(), k: min(res.RequiredK, MaxDebugItems)}
		sel := newDebugSelector(opts.Debug)
		if keeper, ok := src.(targetKeeper); ok {
			keeper.keepTargets(sel)
			cfg.debug.src = sel
		} else {
			cfg.debug.sel = sel
		}
	}
	// The whole-set values are computed when the last batch has been
	// consumed: before LogEvaluation, which reads them once the rows end,
	// stores them.
	// Its keys are there from the start, for the store's checks of the
	// names (lower-is-better ones among them).
	wholeSet := make(map[string]float64, len(wholeKeys))
	for _, k := range wholeKeys {
		wholeSet[k] = 0
	}
	cfg.end = func() error { return aggregateWholeSet(opts.WholeSet, wholeSet) }
	scoring := ev.start(ctx, src, workers, cfg)
	defer scoring.Close()
	scoring.OnBatch = opts.OnBatch
	var (
		rows    store.Rows = scoring
		perUser *scores.Writer
	)
	if opts.PerUser != "" {
		if perUser, err = scores.Create(opts.PerUser, ev.Keys()); err != nil {
			return nil, err
		}
		defer perUser.Close()
		rows = &teeRows{Scoring: scoring, w: perUser}
	}
	nev := opts.Log
	if opts.ServiceLogErr != nil {
		if err := opts.ServiceLogErr(); err != nil {
			res.ServiceLogError = err.Error()
			md := make(map[string]any, len(nev.Metadata)+1)
			maps.Copy(md, nev.Metadata)
			md["service_log_error"] = res.ServiceLogError
			nev.Metadata = md
		}
	}
	if opts.Store != nil {
		nev.Protocol.Cutoffs, nev.Protocol.RequiredK = cutoffs(append(slices.Clone(ev.Keys()), wholeKeys...)), res.RequiredK
		if len(wholeKeys) > 0 {
			nev.WholeSet = wholeSet
		}
		if cfg.debug != nil {
			nev.Debug = func() json.RawMessage {
				if len(cfg.debug.rows) == 0 {
					return nil
				}
				var raw json.RawMessage
				raw, res.DebugStored = cfg.debug.stored()
				return raw
			}
		}
	}
	switch {
	case opts.Store != nil && opts.NoPerUser:
		for rows.Next() { // for the per-user file, and the eval draws
		}
		if err = scoring.Err(); err == nil {
			res.Logged, err = logAggregates(ctx, opts.Store, nev, scoring, src)
		}
	case opts.Store != nil:
		res.Logged, err = opts.Store.LogEvaluation(ctx, nev, rows)
	case perUser != nil:
		for rows.Next() {
		}
		err = scoring.Err()
	default:
		err = scoring.Drain()
	}
	if err != nil {
		return nil, err
	}
	if res.Logged != nil {
		res.EvaluationID, res.Existing = &res.Logged.ID, res.Logged.Existing
	}
	if perUser != nil {
		if err := perUser.Close(); err != nil {
			return nil, fmt.Errorf("%s: %w", opts.PerUser, err)
		}
	}
	sum := scoring.Summary()
	res.Means = sum.Means()
	maps.Copy(res.Means, wholeSet)
	if cfg.debug != nil {
		res.Debug, res.DebugMissing = cfg.debug.rows, cfg.debug.missing()
	}
	res.AggregatesOnly = res.Logged != nil && res.Logged.AggregatesOnly
	res.Rows, res.ScoredRows, res.Units = sum.Rows(), sum.ScoredRows(), sum.Units()
	res.TargetFingerprint, res.FingerprintKind = src.Targets().Sum(), "targets"
	return res, nil
}

// RequiredK is the rank to which rankings must be read for these options
// (RankingOptions.Width): 0, every rank, when Metrics is empty and Run
// computes DefaultMetrics at the full width, and otherwise the largest
// cutoff of Metrics, WholeSet and WholeSetSpecs.
func (o RunOptions) RequiredK() int {
	if len(o.Metrics) == 0 {
		return 0
	}
	k := RequiredK(o.Metrics)
	for _, m := range o.WholeSet {
		k = max(k, m.RequiredK())
	}
	for _, s := range o.WholeSetSpecs {
		k = max(k, s.RequiredK())
	}
	return k
}

// widthReporter is a source that tells the predictions per row it holds
// (K) from those it reads (Width), as NumPyRankings does.
type widthReporter interface {
	K() int
}

// wholeSetMetrics gives the whole-set metrics of opts: WholeSet, then those
// of WholeSetSpecs made for the catalogue's size, from opts or src. It
// refuses a metric that looks deeper than the ranks src reads when src
// holds more, as its value would be of fewer ranks than its key says (a
// caller opens src at RunOptions.RequiredK to read them all).
func wholeSetMetrics(src Rankings, opts RunOptions) ([]WholeSetMetric, error) {
	ms := opts.WholeSet
	if len(opts.WholeSetSpecs) > 0 {
		ms = slices.Clip(ms)
		size := opts.CatalogueSize
		if size < 0 {
			return nil, request.Errorf("{catalogue_size} must be a positive number of items, not %d", size)
		}
		if size == 0 {
			if s, ok := src.(CatalogueSizer); ok {
				if size = s.CatalogueSize(); size <= 0 {
					return nil, request.Errorf("%s needs the catalogue's size, and the targets have no columns: give {catalogue_size}",
						opts.WholeSetSpecs[0].Keys()[0])
				}
			}
		}
		if size == 0 {
			return nil, request.Errorf("%s needs the catalogue's size, the number of items a model may recommend: give {catalogue_size} (NumPy input gives it by the targets' columns)",
				opts.WholeSetSpecs[0].Keys()[0])
		}
		for _, s := range opts.WholeSetSpecs {
			ms = append(ms, s.Metrics(size)...)
		}
	}
	if w, ok := src.(widthReporter); ok && w.K() > src.Width() {
		for _, m := range ms {
			if m != nil && m.RequiredK() > src.Width() && len(m.Keys()) > 0 {
				return nil, fmt.Errorf("%w %q: it looks at the top %d predictions of each row, but they are read to rank %d only, the largest cutoff of the per-user metrics: name a per-user metric at %d too",
					ErrBadMetric, m.Keys()[0], m.RequiredK(), src.Width(), m.RequiredK())
			}
		}
	}
	return ms, nil
}

// wholeSetKeys checks the keys of the whole-set metrics ms against each
// other and the per-user keys, and returns them in order.
func wholeSetKeys(perUser []string, ms []WholeSetMetric) ([]string, error) {
	seen := make(map[string]bool, len(perUser))
	for _, k := range perUser {
		seen[k] = true
	}
	var keys []string
	for i, m := range ms {
		if m == nil || len(m.Keys()) == 0 {
			return nil, fmt.Errorf("%w: whole-set metric %d of %d is nil or has no keys", ErrBadMetric, i+1, len(ms))
		}
		for _, k := range m.Keys() {
			if k == "" {
				return nil, fmt.Errorf("%w: whole-set metric %d of %d has an empty key", ErrBadMetric, i+1, len(ms))
			}
			if seen[k] {
				return nil, fmt.Errorf("%w %q: key computed twice; give each metric and cutoff once", ErrBadMetric, k)
			}
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// aggregateWholeSet puts the value of every key of ms in out. A value that
// is not finite is an error wrapping ErrBadValue.
func aggregateWholeSet(ms []WholeSetMetric, out map[string]float64) error {
	for _, m := range ms {
		keys, vals := m.Keys(), m.Aggregate()
		if len(vals) != len(keys) {
			panic(fmt.Sprintf("evaluate: whole-set metric %q gave %d values for %d keys", keys[0], len(vals), len(keys)))
		}
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("whole-set key %q: %w: %v", keys[i], ErrBadValue, v)
			}
			out[keys[i]] = v
		}
	}
	return nil
}

// logAggregates logs the evaluation that scoring computed, read to its
// end, by its aggregates and counts alone.
func logAggregates(ctx context.Context, st *store.Store, nev store.NewEvaluation, scoring *Scoring, src Rankings) (*store.Logged, error) {
	sum := scoring.Summary()
	nev.TargetFingerprint = src.Targets().Sum()
	if nev.Protocol.EvalDraws <= 0 {
		nev.Protocol.EvalDraws = int(scoring.EvalDraws())
	}
	return st.LogAggregates(ctx, nev, store.Aggregates{
		Metrics: scoring.Metrics(),
		Means:   sum.Means(),
		Rows:    sum.Rows(), ScoredRows: sum.ScoredRows(), Units: sum.Units(),
	})
}

// RequiredK is the largest RequiredK of metrics, 0 for none: the width at
// which to open rankings for them (RankingOptions.Width).
func RequiredK(metrics []Metric) int {
	k := 0
	for _, m := range metrics {
		k = max(k, m.RequiredK())
	}
	return k
}

// cutoffs lists the distinct k of metric keys such as "ndcg@10", ascending.
func cutoffs(keys []string) []int {
	var ks []int
	for _, key := range keys {
		_, k, ok := strings.Cut(key, "@")
		if n, err := strconv.Atoi(k); ok && err == nil && !slices.Contains(ks, n) {
			ks = append(ks, n)
		}
	}
	slices.Sort(ks)
	return ks
}

// teeRows writes every row the store reads to a per-user file as well.
type teeRows struct {
	*Scoring
	w *scores.Writer
}

func (t *teeRows) Next() bool {
	if !t.Scoring.Next() {
		return false
	}
	t.w.Write(t.SampleID(), t.Values())
	return true
}

package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/digest"
	"github.com/verdict-ml/verdict/stats"
)

// Rows is a stream of per-unit values in wide form: one row per (sample ID, draw)
// with one value per metric. The readers in package scores implement it for CSV,
// TSV, JSON Lines, Parquet and NumPy inputs; a Go program can implement it over
// anything it holds.
//
// Rows reports malformed input (ragged rows, non-numeric cells, a missing value)
// through Err, with an error that names the location. The store itself checks
// what is independent of the format: empty sample IDs, NaN and ±Inf, values out of
// float4 range, duplicate (sample ID, draw) pairs and empty input.
type Rows interface {
	// Metrics names the value columns, in the order Values returns them.
	Metrics() []string
	// HasDraw reports whether the input carries a draw column, that is whether
	// one sample ID may have several rows.
	HasDraw() bool
	// Next advances to the next row. It returns false at the end of the input
	// or on the first error; Err tells which.
	Next() bool
	// SampleID is the current row's sample ID.
	SampleID() string
	// Draw is the current row's draw number; 0 when the input has no draw column.
	Draw() int64
	// Values are the current row's values, one per metric. The slice may be
	// reused by the next call to Next.
	Values() []float64
	// Where locates the current row for error messages, for example
	// "scores.csv: line 12" or "scores.parquet: row 12".
	Where() string
	// Err is the error that stopped Next, or nil at a clean end of input.
	Err() error
}

// InputCounter is implemented by sources that do not log every row of their
// input, such as evaluations that skip rows without targets. InputRows is the
// number of rows the input had in all (n_rows), once Next has returned false.
type InputCounter interface {
	InputRows() int64
}

// TargetFingerprinter is implemented by sources that read the targets the
// values were scored against. TargetFingerprint is their fingerprint, once
// Next has returned false; it is recorded unless NewEvaluation names one.
type TargetFingerprinter interface {
	TargetFingerprint() string
}

// UnitCounter is implemented by sources that count their distinct sample IDs
// themselves. Units is that count (n_units) once Next has returned false; it
// spares the store a pass over the loaded rows when the source has draws.
type UnitCounter interface {
	Units() int64
}

// DrawCounter is implemented by sources that number the rows of each sample
// ID themselves. EvalDraws is the most rows any sample ID has, once Next has
// returned false; it spares the store counting them in the database, and is
// recorded as the evaluation's eval draws unless its protocol names them.
type DrawCounter interface {
	EvalDraws() int64
}

// NewEvaluation describes an evaluation to log: where it belongs and what
// protocol produced it. The per-unit values come separately, from a Rows or
// LongRows source.
type NewEvaluation struct {
	Experiment string // created on first use
	Run        string // created on first use
	EvalSet    string // the evaluation set's name

	// TargetFingerprint is the fingerprint of the targets the values were
	// scored against (see `verdict fingerprint`): a SHA-256 digest in 64
	// hexadecimal digits, recorded in lower case. When empty, the store
	// derives a samples-only fingerprint from the set of sample IDs and
	// records that the guard covers samples, not targets.
	TargetFingerprint string

	// Params are added to the run's params. A param the run already has
	// must keep its value (JSON values compared as values: 0.1 and 0.10
	// are equal): a log that gives it another is refused with a
	// *ParamConflictError, and nothing is written.
	Params map[string]any

	// Tags and TagValues label the run: each tag has a key and a value,
	// and a tag of Tags has the value "true". TagValues wins over Tags for
	// a key in both. Unlike params, tags are mutable: a value given for a
	// key the run already has replaces the old one. Keys hold no '='.
	Tags      []string
	TagValues map[string]string

	// Group is the configuration the run trains with one of several seeds
	// ("" for none). A run's group is fixed once logged: another group is
	// refused with a *GroupConflictError, and nothing is written.
	Group string

	GitCommit string         // recorded on the run if it has none yet
	Metadata  map[string]any // free metadata of the evaluation

	// Step, when set, is the point of training the evaluation was taken at
	// (an epoch, a global step, a build number). A run has at most one
	// evaluation per evaluation set name and step: a log of a step already
	// stored with other content is refused with a *StepConflictError,
	// while a retry (the same content, or the same idempotency key)
	// returns the stored evaluation.
	Step *int64

	// LowerIsBetter names the metrics for which a lower value is better
	// (log loss, MAE). Every name must be one of the input's metrics.
	LowerIsBetter []string

	// IdempotencyKey, when set, names the request: a second log with the
	// same key for the same run is a retry of the first, so it writes
	// nothing and returns the first evaluation with Existing set. Without
	// RequestDigest that holds whatever its content (a retried job may well
	// have computed slightly different values); with it, only for the same
	// digest. That holds also when the two logs run at once: one stores its
	// evaluation and the other returns it.
	IdempotencyKey string

	// RequestDigest, when set with IdempotencyKey, returns the digest of
	// the request that logs (SHA-256 in 64 lower-case hexadecimal digits, of
	// its body and of the parameters that shape the evaluation); it is
	// called once the source's last row has been read, so that a caller may
	// compute it as the body streams by. The digest is stored with the key,
	// and the key then holds that content only: a later log with the same
	// key and digest returns the first evaluation with Existing set, and
	// one with another digest returns an *IdempotencyConflictError and
	// writes nothing. Without it a key names a retry whatever the content,
	// as above.
	RequestDigest func() string

	Protocol Protocol

	// NRows is the number of input rows when some rows were not scored (rows
	// without targets; their values are not stored). Zero means every logged
	// row was scored.
	NRows int64

	// Progress, when set, is called now and then from the loading goroutine
	// with the number of rows read so far.
	Progress func(rows int64)

	// Labels are 0/1 labels of the evaluation set's samples (classification),
	// recorded with the evaluation set for DeLong's test. Labels already
	// recorded for a sample must agree.
	Labels []Label

	// AggregatesOnly logs the evaluation's means and counts without its
	// per-unit values. The rows are read, checked and counted as for any
	// log, in a table of the logging transaction that is dropped before it
	// commits; the evaluation then cannot be paired with another.
	AggregatesOnly bool

	// WholeSet holds the values of whole-set metrics (catalogue coverage,
	// say): computed over the whole evaluation, with no per-unit value.
	// They are stored with the evaluation's aggregates, and their keys
	// must not be metrics of the rows. The keys are read when the log
	// starts, the values once the source's last row has been read: a
	// source that computes them as it goes may fill them in until then.
	WholeSet map[string]float64

	// Debug, when set, is called once the last row has been read, inside
	// the logging transaction; the JSON array it returns is stored with
	// the evaluation (DebugRows reads it back). More than MaxDebugBytes is
	// an error wrapping ErrBadInput.
	Debug func() json.RawMessage

	// Connections is how many database connections load a wide input at
	// once. Above 1 the values are split among that many hash partitions of
	// the evaluation's partition while streaming, and each is loaded and
	// indexed on its own connection: worth it for inputs of a few hundred
	// thousand rows and more. 0 means 1. On a distributed database (see
	// Distribute) it is ignored: the rows go to the shards in parallel.
	Connections int
}

// Protocol is how an evaluation was produced. The zero value is a hold-out
// evaluation with nothing else recorded but its eval draws.
type Protocol struct {
	Name      string // holdout (default), kfold, repeated_kfold or 5x2
	Cutoffs   []int  // the cutoffs k the metrics were computed at
	RequiredK int    // the largest rank the metrics look at; 0: unknown
	// EvalDraws is how many rows the protocol gives one sample ID. When it
	// is 0, logging sets it to the most rows any sample ID has: 1 without a
	// draw column, else counted while loading (DrawCounter) or by the
	// database, and every evaluation records it.
	EvalDraws int
	Folds     int
	Repeats   int
	NTrain    int64
	NTest     int64
}

// Label is a sample's 0/1 label.
type Label struct {
	SampleID string
	Label    int16
}

// maxSampleIDBytes keeps sample IDs well inside what a B-tree entry can hold.
const maxSampleIDBytes = 1024

func checkSampleID(id string) error {
	switch {
	case id == "":
		return errors.New("empty sample ID")
	case len(id) > maxSampleIDBytes:
		return fmt.Errorf("sample ID is %d bytes long; at most %d are allowed", len(id), maxSampleIDBytes)
	case strings.IndexByte(id, 0) >= 0:
		return errors.New("sample ID contains a NUL byte")
	case !utf8.ValidString(id):
		return fmt.Errorf("sample ID %s is not valid UTF-8", namePreview(id))
	}
	return nil
}

// toReal converts a value to the stored float4, or says why it cannot: the
// readers refuse the same values, and these checks hold every other source
// (a program using the library, a request to a server) to the same rules.
func toReal(v float64) (float32, string) {
	switch {
	case math.IsNaN(v):
		return 0, "value is NaN"
	case math.IsInf(v, 0):
		return 0, fmt.Sprintf("value is %v", v)
	case math.Abs(v) > math.MaxFloat32:
		return 0, fmt.Sprintf("value %g is out of range for a real (float4)", v)
	case v != 0 && float32(v) == 0:
		return 0, fmt.Sprintf("value %g is too small for a real (float4), which would store 0", v)
	}
	return float32(v), ""
}

// maxNameBytes bounds the names of experiments, runs, evaluation sets,
// metrics, tags and params, and idempotency keys: far more than
// anyone types, and little enough that a name pasted by mistake (a file, a
// column of values) is refused rather than stored and then printed by every
// report. Migration 7 sets the same limits in the schema.
const maxNameBytes = 256

// checkName returns what is wrong with a name of the given kind ("run
// name", "tag", ...), or nil: more than maxNameBytes bytes, invalid UTF-8,
// or a control character (Unicode category Cc: C0, DEL and C1, ESC among
// them), which a terminal would act on when a report prints the name. The
// error names the kind, quotes the start of the name with its control
// characters escaped, and says how long it is; it does not wrap ErrBadInput,
// so that callers can place it.
func checkName(kind, name string) error {
	if len(name) > maxNameBytes {
		return fmt.Errorf("the %s %s is %d bytes long; at most %d are allowed", kind, namePreview(name), len(name), maxNameBytes)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("the %s %s is not valid UTF-8", kind, namePreview(name))
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("the %s %s contains the control character %U", kind, namePreview(name), r)
		}
	}
	return nil
}

// maxMetrics bounds the number of metrics of one evaluation.
const maxMetrics = 1000

// LogEvaluation stores one evaluation with its per-unit values from a wide
// source, in a single transaction. Input problems return an *InputError or a
// *DuplicateError (both wrap ErrBadInput) and leave the database unchanged.
// A second log of the same content for the same run and evaluation set, or
// with the same idempotency key, returns the first evaluation with Existing
// set.
func (s *Store) LogEvaluation(ctx context.Context, ev NewEvaluation, rows Rows) (*Logged, error) {
	metrics := rows.Metrics()
	if err := checkMetricNames(append(slices.Clone(metrics), slices.Sorted(maps.Keys(ev.WholeSet))...), ev.LowerIsBetter); err != nil {
		return nil, err
	}
	// One connection logs; the others, up to the pool's size, load.
	buckets := min(max(ev.Connections, 1), maxConnections, int(s.pool.Config().MaxConns)-1)
	if ev.AggregatesOnly {
		buckets = 1 // the rows are dropped: nothing to gain from loading them in parallel
	}
	if buckets > 1 {
		// On a distributed database one part: Citus already writes the
		// shards in parallel, and distributes one level of partitions only.
		d, err := s.Distributed(ctx)
		if err != nil {
			return nil, err
		}
		if d {
			buckets = 1
		}
	}
	if buckets > 1 {
		// A log killed just before this one began may have held its
		// evaluation's lock a moment longer, while its server process
		// noticed, and kept its parts from being collected when this
		// one started: look again once this one is done.
		defer s.collectOrphans(ctx)
	}
	return s.logEvaluation(ctx, ev, rows, rows.HasDraw(), buckets, func(ctx context.Context, tx pgx.Tx, l *load) error {
		l.metrics = metrics
		l.sums = make([]stats.CompensatedSum, len(metrics))
		l.content.Metrics(metrics)
		_, hasTargets := rows.(TargetFingerprinter)
		l.sampleFingerprint = ev.TargetFingerprint == "" && !hasTargets && !rows.HasDraw()
		c := &wideChecker{rows: rows, metrics: len(metrics)}
		if buckets > 1 {
			return s.loadBuckets(ctx, tx, l, c)
		}
		return l.copyIn(ctx, tx, c)
	})
}

// LogEvaluationLong is LogEvaluation for a long source. The records are staged
// in a temporary table and pivoted in the database, so they may come in any
// order. Every (sample ID, draw) must have exactly one value per metric.
func (s *Store) LogEvaluationLong(ctx context.Context, ev NewEvaluation, rows LongRows) (*Logged, error) {
	return s.logEvaluation(ctx, ev, rows, rows.HasDraw(), 1, func(ctx context.Context, tx pgx.Tx, l *load) error {
		return l.pivotLong(ctx, tx, rows, ev.LowerIsBetter)
	})
}

// load is the state of one evaluation being written.
type load struct {
	id       int64
	table    string // sanitized identifier of the evaluation's partition
	metrics  []string
	sums     []stats.CompensatedSum
	rows     int64
	samples  fingerprint.Set // sample IDs, when the store derives the fingerprint
	content  digest.Content
	progress func(int64)
	long     bool // pivoted from a long source
	hasDraw  bool
	buckets  int // hash partitions loaded in parallel; 1 for none

	// sampleFingerprint folds every row's sample ID into samples while
	// streaming (wide input without draws: each row is a distinct unit).
	sampleFingerprint bool
	leaves            []string // committed hash partitions, to drop if the log fails
}

// maxConnections bounds NewEvaluation.Connections.
const maxConnections = 16

func (s *Store) logEvaluation(ctx context.Context, ev NewEvaluation, src any, hasDraw bool, buckets int, fill func(context.Context, pgx.Tx, *load) error) (*Logged, error) {
	start := time.Now()
	if found, err := s.startLog(ctx, &ev); found != nil || err != nil {
		return found, err
	}

	var out *Logged
	l := &load{content: digest.New(), progress: ev.Progress, buckets: buckets, hasDraw: hasDraw}
	err := s.transact(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('evaluations', 'id'))`).Scan(&l.id); err != nil {
			return fmt.Errorf("allocate evaluation ID: %w", err)
		}
		l.table = partitionName(l.id)
		// The partition is created in this transaction, so on a server with
		// wal_level=minimal the load and the index build skip the WAL. With
		// several connections it is itself partitioned by hash of sample_id,
		// and loadBuckets fills its partitions.
		if _, err := tx.Exec(ctx, `SELECT verdict_units.create_values($1, $2)`, l.id, l.buckets); err != nil {
			return fmt.Errorf("create partition: %w", err)
		}
		if err := fill(ctx, tx, l); err != nil {
			return err
		}
		if tf, ok := src.(TargetFingerprinter); ok && ev.TargetFingerprint == "" {
			ev.TargetFingerprint = tf.TargetFingerprint()
		}
		if l.rows == 0 {
			return &InputError{Problem: "no rows: the input holds no per-unit values"}
		}
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '256MB'; SAVEPOINT before_pk`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT verdict_units.index_values($1, NULL)`, l.id); err != nil {
			if isUniqueViolation(err) {
				return l.duplicate(ctx, tx, hasDraw)
			}
			return fmt.Errorf("index per-unit values: %w", err)
		}

		// Without draws every row is a unit of one row. With draws, the
		// source may have counted the units and their rows; otherwise, and
		// when the samples fingerprint needs every distinct ID (draws, or
		// long input whose IDs were not seen one by one), the database
		// counts them.
		units, draws := l.rows, int64(1)
		uc, unitsCounted := src.(UnitCounter)
		dc, drawsCounted := src.(DrawCounter)
		fold := ev.TargetFingerprint == "" && (hasDraw || l.long)
		var err error
		switch {
		case fold || hasDraw && !(unitsCounted && drawsCounted):
			units, draws, err = l.countUnits(ctx, tx, fold)
		case hasDraw:
			units, draws = uc.Units(), dc.EvalDraws()
		case unitsCounted:
			units = uc.Units()
		}
		if err != nil {
			return fmt.Errorf("count units: %w", err)
		}
		if ev.Protocol.EvalDraws <= 0 {
			ev.Protocol.EvalDraws = int(draws)
		}
		fp, kind := ev.TargetFingerprint, fingerprint.KindTargets
		if fp == "" {
			fp, kind = l.samples.Sum(), fingerprint.KindSamples
		}
		nRows := l.rows
		if ev.NRows > 0 {
			nRows = ev.NRows
		}
		if ic, ok := src.(InputCounter); ok {
			nRows = ic.InputRows()
		}
		res := &Logged{Evaluation: Evaluation{
			ID:              l.id,
			Experiment:      ev.Experiment,
			Run:             ev.Run,
			EvalSet:         ev.EvalSet,
			Fingerprint:     fp,
			FingerprintKind: kind,
			Metrics:         l.metrics,
			LowerIsBetter:   ev.LowerIsBetter,
			Aggregates:      make(map[string]float64, len(l.metrics)),
			Rows:            nRows,
			ScoredRows:      l.rows,
			Units:           units,
			Protocol:        ev.Protocol,
			Metadata:        ev.Metadata,
			IdempotencyKey:  ev.IdempotencyKey,
			SoftwareVersion: Version(),
		}}
		for i, m := range l.metrics {
			res.Aggregates[m] = l.sums[i].Value() / float64(l.rows)
		}
		if err := addWholeSet(res, ev.WholeSet, &l.content); err != nil {
			return err
		}
		if ev.AggregatesOnly {
			res.AggregatesOnly = true
			l.content.AggregatesOnly()
		}
		// out is set before the insert: when a concurrent log of the same
		// evaluation wins, res holds what finds the winner.
		out = res
		if err := s.insertEvaluation(ctx, tx, ev, l, res); err != nil {
			return err
		}
		if res.Existing {
			return errRollback
		}
		if err := insertDebugRows(ctx, tx, l.id, ev.Debug); err != nil {
			return err
		}
		if ev.AggregatesOnly {
			if _, err := tx.Exec(ctx, `DROP TABLE `+l.table); err != nil {
				return fmt.Errorf("drop the per-unit values of an aggregates-only evaluation: %w", err)
			}
			return nil
		}
		if _, err := tx.Exec(ctx, `SELECT verdict_units.attach_values($1)`, l.id); err != nil {
			return fmt.Errorf("attach per-unit values: %w", err)
		}
		return nil
	})
	if (err != nil || out.Existing) && len(l.leaves) > 0 {
		// The hash partitions were committed on their own connections;
		// with the evaluation rolled back they are garbage.
		s.dropUnattached(context.WithoutCancel(ctx), l.id)
	}
	return s.settleLog(ctx, ev, out, err, start)
}

// settleLog finishes a log whose transaction returned err: a rollback on
// purpose is no error, a concurrent log of the same evaluation (by content
// or idempotency key) that committed first is the answer, and an existing
// evaluation is read back whole.
func (s *Store) settleLog(ctx context.Context, ev NewEvaluation, out *Logged, err error, start time.Time) (*Logged, error) {
	switch {
	case errors.Is(err, errRollback):
		err = nil
	case errors.Is(err, errConcurrentDuplicate):
		// A concurrent log with the same idempotency key, or of the same
		// content, committed first: the answer is the evaluation it stored,
		// unless the key now holds other content.
		out.Existing, err = true, nil
		if ev.IdempotencyKey != "" {
			id, digest, ferr := heldByKey(ctx, s.pool, out.RunID, ev.IdempotencyKey)
			if ferr == nil {
				if ev.RequestDigest != nil && digest != "" && digest != out.requestSHA {
					return nil, &IdempotencyConflictError{Key: ev.IdempotencyKey, Run: ev.Run, EvaluationID: id}
				}
				out.ID = id
				break
			}
		}
		if err = s.pool.QueryRow(ctx, `
			SELECT id FROM evaluations
			WHERE run_id = $1 AND evaluation_set_id = $2 AND content_sha256 = $3`,
			out.RunID, out.EvalSetID, out.contentSHA).Scan(&out.ID); err != nil {
			err = fmt.Errorf("find the evaluation logged concurrently: %w", err)
		}
	}
	if err != nil {
		return nil, err
	}
	if out.Existing {
		found, err := s.GetEvaluation(ctx, out.ID)
		if err != nil {
			return nil, err
		}
		out = &Logged{Evaluation: *found, Existing: true}
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// startLog checks a new evaluation before its log starts. It returns the
// evaluation already stored under ev's idempotency key, if any: the log is
// a retry, and writes nothing.
func (s *Store) startLog(ctx context.Context, ev *NewEvaluation) (*Logged, error) {
	start := time.Now()
	if err := s.writable(); err != nil {
		return nil, err
	}
	if err := checkNewEvaluation(*ev); err != nil {
		return nil, err
	}
	ev.TargetFingerprint = strings.ToLower(ev.TargetFingerprint)
	if ev.IdempotencyKey != "" && ev.RequestDigest == nil {
		// With a request digest the key is checked once the rows are read
		// and the digest known (insertEvaluation); a caller that can tell
		// the digest sooner asks FindRetry first.
		found, err := s.findByKey(ctx, ev.Experiment, ev.Run, ev.IdempotencyKey)
		if err == nil {
			found.Elapsed = time.Since(start)
			return found, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	// A changed param is refused before the rows are read; the log's
	// transaction checks again, with the run locked.
	if err := checkParams(ctx, s.pool, *ev, false); err != nil {
		return nil, err
	}
	return nil, checkGroup(ctx, s.pool, *ev, false)
}

// errRollback makes transact roll back without reporting an error.
var errRollback = errors.New("rollback")

func checkNewEvaluation(ev NewEvaluation) error {
	for _, f := range []struct{ name, v string }{{"experiment", ev.Experiment}, {"run", ev.Run}, {"evaluation set", ev.EvalSet}} {
		if strings.TrimSpace(f.v) == "" {
			return fmt.Errorf("%w: the %s name is empty", ErrBadInput, f.name)
		}
		if err := checkName(f.name+" name", f.v); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	if err := checkTags(ev); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(ev.Params)) {
		if err := checkName("param name", k); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ev.Metadata)) {
		if err := checkName("metadata key", k); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	if ev.IdempotencyKey != "" {
		if err := checkName("idempotency key", ev.IdempotencyKey); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	if ev.GitCommit != "" {
		if err := checkName("git commit", ev.GitCommit); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	if fp := ev.TargetFingerprint; fp != "" && !isSHA256Hex(fp) {
		return fmt.Errorf("%w: the target fingerprint %s is not a SHA-256 digest: want 64 hexadecimal digits", ErrBadInput, namePreview(fp))
	}
	switch ev.Protocol.Name {
	case "", "holdout", "kfold", "repeated_kfold", "5x2":
	default:
		return fmt.Errorf("%w: unknown protocol %q (want holdout, kfold, repeated_kfold or 5x2)", ErrBadInput, ev.Protocol.Name)
	}
	p := ev.Protocol
	for _, f := range []struct {
		name string
		v    int64
	}{{"required k", int64(p.RequiredK)}, {"eval draws", int64(p.EvalDraws)}, {"folds", int64(p.Folds)}, {"repeats", int64(p.Repeats)},
		{"training set size", p.NTrain}, {"test set size", p.NTest}} {
		if f.v < 0 {
			return fmt.Errorf("%w: the protocol's %s is %d; it must be positive, or 0 for unknown", ErrBadInput, f.name, f.v)
		}
	}
	for _, k := range p.Cutoffs {
		if k <= 0 {
			return fmt.Errorf("%w: cutoff %d; cutoffs must be positive", ErrBadInput, k)
		}
	}
	return nil
}

// isSHA256Hex reports whether s is 64 hexadecimal digits, of either case.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

func checkMetricNames(metrics, lowerIsBetter []string) error {
	if len(metrics) == 0 {
		return &InputError{Problem: "no metric columns"}
	}
	if len(metrics) > maxMetrics {
		return &InputError{Problem: fmt.Sprintf("%d metrics; at most %d are supported", len(metrics), maxMetrics)}
	}
	seen := make(map[string]bool, len(metrics))
	for _, m := range metrics {
		if err := checkName("metric name", m); err != nil {
			return &InputError{Problem: err.Error()}
		}
		switch {
		case strings.TrimSpace(m) == "":
			return &InputError{Problem: "a metric has an empty name"}
		case seen[m]:
			return &InputError{Column: m, Problem: "metric appears twice"}
		}
		seen[m] = true
	}
	for _, m := range lowerIsBetter {
		if !seen[m] {
			return fmt.Errorf("%w: %s is marked lower-is-better but is not among the metrics (%s)", ErrBadInput, namePreview(m), strings.Join(metrics, ", "))
		}
	}
	return nil
}

// DuplicateError reports a (sample ID, draw) pair that occurs twice. It wraps
// ErrBadInput. Where is empty when the store found the duplicate only after
// loading; a caller holding the input can locate it.
type DuplicateError struct {
	Where    string
	SampleID string
	Draw     int64
	HasDraw  bool
}

func (e *DuplicateError) Error() string {
	what := fmt.Sprintf("sample %q", e.SampleID)
	if e.HasDraw {
		what = fmt.Sprintf("sample %q, draw %d", e.SampleID, e.Draw)
	}
	if e.Where == "" {
		return fmt.Sprintf("duplicate row: %s occurs more than once", what)
	}
	return fmt.Sprintf("%s: duplicate row: %s occurs more than once", e.Where, what)
}

func (e *DuplicateError) Unwrap() error { return ErrBadInput }

// duplicate finds one duplicated (sample ID, draw) after the primary key
// refused the load.
func (l *load) duplicate(ctx context.Context, tx pgx.Tx, hasDraw bool) error {
	if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT before_pk`); err != nil {
		return fmt.Errorf("find the duplicate row: %w", err)
	}
	d := &DuplicateError{HasDraw: hasDraw}
	err := tx.QueryRow(ctx, fmt.Sprintf(`
		SELECT sample_id, draw FROM %s
		GROUP BY sample_id, draw
		HAVING count(*) > 1
		ORDER BY sample_id, draw
		LIMIT 1`, l.table)).Scan(&d.SampleID, &d.Draw)
	if err != nil {
		return fmt.Errorf("find the duplicate row: %w", err)
	}
	return d
}

// countUnits counts the distinct sample IDs of the loaded partition and the
// most rows any of them has, and when asked folds the IDs into the samples
// fingerprint.
func (l *load) countUnits(ctx context.Context, tx pgx.Tx, fingerprint bool) (units, most int64, err error) {
	if !fingerprint {
		err := tx.QueryRow(ctx, fmt.Sprintf(`
			SELECT count(*), coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM %s GROUP BY sample_id) u`, l.table)).Scan(&units, &most)
		return units, most, err
	}
	rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT sample_id, count(*) FROM %s GROUP BY sample_id`, l.table), pgx.QueryResultFormats{pgx.BinaryFormatCode})
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		v := rows.RawValues()
		l.samples.AddSample(v[0])
		most = max(most, int64(binary.BigEndian.Uint64(v[1]))) // a bigint
		units++
	}
	return units, most, rows.Err()
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

func isCheckViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23514"
}

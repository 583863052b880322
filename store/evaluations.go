package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Evaluation is a stored evaluation: a run scored on an evaluation set.
type Evaluation struct {
	ID              int64
	Experiment      string
	Run             string
	EvalSet         string
	RunID           int64
	EvalSetID       int64
	Fingerprint     string
	FingerprintKind string // "targets", "samples" or "labels"
	Metrics         []string
	LowerIsBetter   []string
	Aggregates      map[string]float64 // mean of each metric over scored rows
	Rows            int64              // n_rows
	ScoredRows      int64              // n_scored_rows
	Units           int64              // n_units
	Protocol        Protocol
	Metadata        map[string]any
	IdempotencyKey  string
	SoftwareVersion string
	CreatedAt       time.Time

	// Predictions describes an evaluation of a classifier's predictions
	// (LogPredictions); nil for one of per-unit values.
	Predictions *PredictionInfo

	// AggregatesOnly marks an evaluation logged without its per-unit
	// values (NewEvaluation.AggregatesOnly, LogAggregates): it has means
	// and counts, and nothing to pair.
	AggregatesOnly bool

	// Step is the point of training the evaluation was taken at
	// (NewEvaluation.Step), or nil.
	Step *int64 `json:"step,omitempty"`
}

// WholeSet lists the keys of the evaluation's aggregates that are not
// per-unit metrics: whole-set metrics such as catalogue coverage, which
// have a value for the evaluation and none per unit. An evaluation logged
// with AggregatesOnly lists its metrics in Metrics, not here.
func (e *Evaluation) WholeSet() []string {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(e.Aggregates)) {
		if !slices.Contains(e.Metrics, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// Logged is the outcome of LogEvaluation.
type Logged struct {
	Evaluation
	// Existing reports that the same evaluation was already stored; nothing
	// was written and Evaluation describes the stored one.
	Existing bool
	Elapsed  time.Duration

	contentSHA string
	requestSHA string // the request's digest, when the key holds one
}

const evaluationColumns = `
	e.id, x.name, r.name, s.name, e.run_id, e.evaluation_set_id,
	s.fingerprint, s.fingerprint_kind, e.metrics, e.lower_is_better, e.aggregates,
	e.n_rows, e.n_scored_rows, e.n_units, e.protocol, e.cutoffs,
	coalesce(e.required_k, 0), coalesce(e.eval_draws, 0), coalesce(e.folds, 0), coalesce(e.repeats, 0),
	coalesce(e.n_train, 0), coalesce(e.n_test, 0),
	e.metadata, coalesce(e.idempotency_key, ''), e.software_version, e.created_at,
	e.task, e.classes, e.threshold, e.ece_bins, e.aggregates_only, e.step`

const evaluationFrom = `
	FROM evaluations e
	JOIN runs r ON r.id = e.run_id
	JOIN experiments x ON x.id = r.experiment_id
	JOIN evaluation_sets s ON s.id = e.evaluation_set_id`

func scanEvaluation(row pgx.Row) (*Evaluation, error) {
	var e Evaluation
	var cutoffs []int32
	var requiredK, draws, folds, repeats int32
	var task *string
	var classes []string
	var threshold *float64
	var bins *int32
	err := row.Scan(&e.ID, &e.Experiment, &e.Run, &e.EvalSet, &e.RunID, &e.EvalSetID,
		&e.Fingerprint, &e.FingerprintKind, &e.Metrics, &e.LowerIsBetter, &e.Aggregates,
		&e.Rows, &e.ScoredRows, &e.Units, &e.Protocol.Name, &cutoffs,
		&requiredK, &draws, &folds, &repeats, &e.Protocol.NTrain, &e.Protocol.NTest,
		&e.Metadata, &e.IdempotencyKey, &e.SoftwareVersion, &e.CreatedAt,
		&task, &classes, &threshold, &bins, &e.AggregatesOnly, &e.Step)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	for _, c := range cutoffs {
		e.Protocol.Cutoffs = append(e.Protocol.Cutoffs, int(c))
	}
	e.Protocol.RequiredK, e.Protocol.EvalDraws = int(requiredK), int(draws)
	e.Protocol.Folds, e.Protocol.Repeats = int(folds), int(repeats)
	if task != nil {
		e.Predictions = &PredictionInfo{Task: *task, Classes: classes}
		if threshold != nil {
			e.Predictions.Threshold = *threshold
		}
		if bins != nil {
			e.Predictions.Bins = int(*bins)
		}
	}
	return &e, nil
}

// GetEvaluation returns the evaluation with the given ID, or ErrNotFound.
func (s *Store) GetEvaluation(ctx context.Context, id int64) (*Evaluation, error) {
	return getEvaluation(ctx, s.pool, id)
}

// querier is what a pool and a transaction both offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func getEvaluation(ctx context.Context, q querier, id int64) (*Evaluation, error) {
	e, err := scanEvaluation(q.QueryRow(ctx, `SELECT `+evaluationColumns+evaluationFrom+` WHERE e.id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("get evaluation %d: %w", id, err)
	}
	return e, err
}

// EvaluationFilter selects evaluations; empty fields match everything.
type EvaluationFilter struct {
	Experiment string `req:"experiment" short:"e" arg:"NAME" help:"only evaluations of this experiment"`
	Run        string `req:"run" short:"r" arg:"NAME" help:"only evaluations of this run"`
	EvalSet    string `req:"eval_set" short:"s" arg:"NAME" help:"only evaluations on this evaluation set"`
	Limit      int    `req:"limit" short:"n" default:"100" arg:"N" help:"at most N evaluations, newest first; 0 for all"` // 0 means no limit
}

// EvaluationView is how to show one evaluation, as the front doors take
// it (package request).
type EvaluationView struct {
	Debug bool `req:"debug" help:"also show the debug rows logged by evaluate's debug_users or debug_sample_ids"`
}

// Get returns evaluation id, and with Debug, its debug rows.
func (v EvaluationView) Get(ctx context.Context, s *Store, id int64) (*Evaluation, []DebugRow, error) {
	e, err := s.GetEvaluation(ctx, id)
	if err != nil || !v.Debug {
		return e, nil, err
	}
	debug, err := s.DebugRows(ctx, id)
	return e, debug, err
}

// ListEvaluations returns the evaluations matching f, newest first.
func (s *Store) ListEvaluations(ctx context.Context, f EvaluationFilter) ([]Evaluation, error) {
	limit := int64(f.Limit)
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.pool.Query(ctx, `SELECT `+evaluationColumns+evaluationFrom+`
		WHERE ($1 = '' OR x.name = $1)
		  AND ($2 = '' OR r.name = $2)
		  AND ($3 = '' OR s.name = $3)
		ORDER BY e.created_at DESC, e.id DESC
		LIMIT CASE WHEN $4 < 0 THEN NULL ELSE $4 END`, f.Experiment, f.Run, f.EvalSet, limit)
	if err != nil {
		return nil, fmt.Errorf("list evaluations: %w", err)
	}
	out, err := scanEvaluations(rows)
	if err != nil {
		return nil, fmt.Errorf("list evaluations: %w", err)
	}
	return out, nil
}

// findByKey returns the evaluation logged for a run with an idempotency key.
func (s *Store) findByKey(ctx context.Context, experiment, run, key string) (*Logged, error) {
	e, err := scanEvaluation(s.pool.QueryRow(ctx, `SELECT `+evaluationColumns+evaluationFrom+`
		WHERE x.name = $1 AND r.name = $2 AND e.idempotency_key = $3`, experiment, run, key))
	if err != nil {
		return nil, err
	}
	return &Logged{Evaluation: *e, Existing: true}, nil
}

// FindRetry returns the evaluation an idempotency key already holds for a
// run, when the request whose digest (see NewEvaluation.RequestDigest)
// digest returns is a retry of the one that logged it: Existing is set,
// and the log need not be sent. It returns nil and no error when the key
// holds nothing yet, without calling digest, and an
// *IdempotencyConflictError when the key holds an evaluation logged with
// another digest. An evaluation stored without a digest (by a log without
// one, or before verdict kept them) is taken for a retry.
func (s *Store) FindRetry(ctx context.Context, experiment, run, key string, digest func() string) (*Logged, error) {
	found, err := s.findByKey(ctx, experiment, run, key)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find idempotency key %q: %w", key, err)
	}
	_, held, err := heldByKey(ctx, s.pool, found.RunID, key)
	if err != nil {
		return nil, fmt.Errorf("find idempotency key %q: %w", key, err)
	}
	if held != "" && held != digest() {
		return nil, &IdempotencyConflictError{Key: key, Run: run, EvaluationID: found.ID}
	}
	return found, nil
}

// heldByKey returns the evaluation an idempotency key holds for a run and
// the digest of the request that logged it ("" when none was kept), or
// ErrNotFound.
func heldByKey(ctx context.Context, q querier, runID int64, key string) (int64, string, error) {
	var id int64
	var digest string
	err := q.QueryRow(ctx, `
		SELECT id, coalesce(request_sha256, '') FROM evaluations
		WHERE run_id = $1 AND idempotency_key = $2`, runID, key).Scan(&id, &digest)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", ErrNotFound
	}
	return id, digest, err
}

// errConcurrentDuplicate reports that a concurrent transaction committed the
// same evaluation first.
var errConcurrentDuplicate = errors.New("evaluation logged concurrently")

// insertEvaluation creates the experiment, run and evaluation set as needed and
// inserts the evaluation row. When the same content (or idempotency key) is
// already stored it sets res.Existing and res.ID instead.
func (s *Store) insertEvaluation(ctx context.Context, tx pgx.Tx, ev NewEvaluation, l *load, res *Logged) error {
	// Before anything is written: a changed param refuses the log. The
	// run's row stays locked until the log commits.
	if err := checkParams(ctx, tx, ev, true); err != nil {
		return err
	}
	if err := checkGroup(ctx, tx, ev, true); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO experiments (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, ev.Experiment); err != nil {
		return fmt.Errorf("create experiment: %w", err)
	}
	var expID int64
	if err := tx.QueryRow(ctx, `SELECT id FROM experiments WHERE name = $1`, ev.Experiment).Scan(&expID); err != nil {
		return fmt.Errorf("find experiment: %w", err)
	}
	// A param the run has keeps its value (checked above), written as
	// first logged; tags take the new values. Old tags that break the
	// limits of names are kept, so that the constraint refuses the log
	// until they are fixed.
	err := tx.QueryRow(ctx, `
		INSERT INTO runs (experiment_id, name, params, tags, tag_values, git_commit, config_group)
		VALUES ($1, $2, coalesce($3::jsonb, '{}'), verdict_tag_list($4::jsonb), $4::jsonb, nullif($5, ''), nullif($6, ''))
		ON CONFLICT (experiment_id, name) DO UPDATE
		SET params = EXCLUDED.params || runs.params,
		    config_group = coalesce(runs.config_group, EXCLUDED.config_group),
		    tag_values = runs.tag_values || EXCLUDED.tag_values,
		    tags = CASE WHEN verdict_names_ok(runs.tags) THEN verdict_tag_list(runs.tag_values || EXCLUDED.tag_values)
		                ELSE runs.tags END,
		    git_commit = coalesce(runs.git_commit, EXCLUDED.git_commit)
		RETURNING id`, expID, ev.Run, ev.Params, ev.tagValues(), ev.GitCommit, ev.Group).Scan(&res.RunID)
	if isCheckViolation(err) {
		// The names logged now were checked; the run's earlier ones, from
		// before migration 7 limited names, were not.
		return fmt.Errorf("%w: run %s has a tag or param name, logged before names were limited, that is over %d bytes long or holds a control character; fix it in the database to log to this run",
			ErrBadInput, namePreview(ev.Run), maxNameBytes)
	}
	if err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO evaluation_sets (experiment_id, name, fingerprint, fingerprint_kind)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (experiment_id, name, fingerprint) DO NOTHING`,
		expID, ev.EvalSet, res.Fingerprint, res.FingerprintKind); err != nil {
		return fmt.Errorf("create evaluation set: %w", err)
	}
	var kind string
	err = tx.QueryRow(ctx, `
		SELECT id, fingerprint_kind FROM evaluation_sets
		WHERE experiment_id = $1 AND name = $2 AND fingerprint = $3`,
		expID, ev.EvalSet, res.Fingerprint).Scan(&res.EvalSetID, &kind)
	if err != nil {
		return fmt.Errorf("find evaluation set: %w", err)
	}
	if kind != res.FingerprintKind {
		return fmt.Errorf("%w: evaluation set %q has fingerprint %s recorded as a %s fingerprint, not a %s one",
			ErrBadInput, ev.EvalSet, res.Fingerprint, kind, res.FingerprintKind)
	}

	if err := recordLabels(ctx, tx, res.EvalSetID, ev.Labels, l); err != nil {
		return err
	}
	if ev.IdempotencyKey != "" && ev.RequestDigest != nil {
		// The key is checked before the content: it names one request,
		// and must not come to hold another's.
		res.requestSHA = ev.RequestDigest()
		id, held, err := heldByKey(ctx, tx, res.RunID, ev.IdempotencyKey)
		switch {
		case err == nil && held != "" && held != res.requestSHA:
			return &IdempotencyConflictError{Key: ev.IdempotencyKey, Run: ev.Run, EvaluationID: id}
		case err == nil:
			res.ID, res.Existing = id, true
			return nil
		case !errors.Is(err, ErrNotFound):
			return fmt.Errorf("look for idempotency key %q: %w", ev.IdempotencyKey, err)
		}
	}
	if ev.Step != nil {
		// The same values at another step are another evaluation.
		l.content.Step(*ev.Step)
	}
	content := l.content.Sum()
	res.contentSHA = content
	err = tx.QueryRow(ctx, `
		SELECT id FROM evaluations
		WHERE run_id = $1 AND evaluation_set_id = $2 AND content_sha256 = $3`,
		res.RunID, res.EvalSetID, content).Scan(&res.ID)
	if err == nil {
		res.Existing = true
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("look for an identical evaluation: %w", err)
	}
	if err := checkStep(ctx, tx, ev, res.RunID); err != nil {
		return err
	}
	res.Step = ev.Step

	p := ev.Protocol
	name := p.Name
	if name == "" {
		name = "holdout"
	}
	cutoffs := p.Cutoffs
	if cutoffs == nil {
		cutoffs = []int{}
	}
	var task, classes, threshold, bins any
	if pi := res.Predictions; pi != nil {
		task, classes = pi.Task, pi.Classes
		if pi.Task == TaskBinary {
			threshold, bins = pi.Threshold, pi.Bins
		}
	}
	lower := ev.LowerIsBetter
	if lower == nil {
		lower = []string{}
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO evaluations (
			id, run_id, evaluation_set_id, metrics, lower_is_better, aggregates,
			n_rows, n_scored_rows, n_units, required_k, protocol, cutoffs,
			eval_draws, folds, repeats, n_train, n_test, metadata,
			content_sha256, idempotency_key, software_version,
			task, classes, threshold, ece_bins, aggregates_only, request_sha256, step)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
			coalesce($18::jsonb, '{}'), $19, nullif($20, ''), $21, $22, $23, $24, $25, $26, nullif($27, ''), $28)`,
		l.id, res.RunID, res.EvalSetID, res.Metrics, lower, res.Aggregates,
		res.Rows, res.ScoredRows, res.Units, positive(int64(p.RequiredK)), name, cutoffs,
		positive(int64(p.EvalDraws)), positive(int64(p.Folds)), positive(int64(p.Repeats)),
		positive(p.NTrain), positive(p.NTest), ev.Metadata,
		content, ev.IdempotencyKey, Version(),
		task, classes, threshold, bins, res.AggregatesOnly, res.requestSHA, ev.Step)
	if isUniqueViolation(err) {
		return errConcurrentDuplicate
	}
	if err != nil {
		return fmt.Errorf("insert evaluation: %w", err)
	}
	return nil
}

// recordLabels stores labels for an evaluation set, refusing labels of
// samples the evaluation being loaded (ld) does not have, and any that
// disagree with labels recorded before.
func recordLabels(ctx context.Context, tx pgx.Tx, setID int64, labels []Label, ld *load) error {
	if len(labels) == 0 {
		return nil
	}
	ids := make([]string, len(labels))
	vals := make([]int16, len(labels))
	for i, l := range labels {
		if err := checkSampleID(l.SampleID); err != nil {
			return fmt.Errorf("%w: label %d: %w", ErrBadInput, i+1, err)
		}
		if l.Label != 0 && l.Label != 1 {
			return fmt.Errorf("%w: label of sample %q is %d, not 0 or 1", ErrBadInput, l.SampleID, l.Label)
		}
		ids[i], vals[i] = l.SampleID, l.Label
	}
	// The first label, in the given order, of a sample the evaluation does
	// not have; its partition's key finds each sample.
	var id string
	err := tx.QueryRow(ctx, fmt.Sprintf(`
		SELECT n.sample_id FROM unnest($2::text[]) WITH ORDINALITY AS n (sample_id, i)
		WHERE NOT EXISTS (SELECT FROM %s u WHERE u.evaluation_id = $1 AND u.sample_id = n.sample_id)
		ORDER BY n.i
		LIMIT 1`, ld.table), ld.id, ids).Scan(&id)
	if err == nil {
		return fmt.Errorf("%w: sample %q is labelled, but the evaluation has no such sample", ErrBadInput, id)
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("check labels: %w", err)
	}
	var old, now int16
	err = tx.QueryRow(ctx, `
		SELECT s.sample_id, s.label, n.label
		FROM unnest($2::text[], $3::smallint[]) AS n (sample_id, label)
		JOIN sample_labels s ON s.evaluation_set_id = $1 AND s.sample_id = n.sample_id
		WHERE s.label <> n.label
		LIMIT 1`, setID, ids, vals).Scan(&id, &old, &now)
	if err == nil {
		return fmt.Errorf("%w: sample %q is labelled %d, but the evaluation set recorded %d", ErrBadInput, id, now, old)
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("check labels: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO sample_labels (evaluation_set_id, sample_id, label)
		SELECT $1, n.sample_id, n.label FROM unnest($2::text[], $3::smallint[]) AS n (sample_id, label)
		ON CONFLICT (evaluation_set_id, sample_id) DO NOTHING`, setID, ids, vals); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("%w: a sample is labelled twice", ErrBadInput)
		}
		return fmt.Errorf("record labels: %w", err)
	}
	return nil
}

// Labels returns the recorded 0/1 labels of an evaluation set's samples.
func (s *Store) Labels(ctx context.Context, setID int64) (map[string]int16, error) {
	return labels(ctx, s.pool, setID)
}

func labels(ctx context.Context, q querier, setID int64) (map[string]int16, error) {
	rows, err := q.Query(ctx, `SELECT sample_id, label FROM sample_labels WHERE evaluation_set_id = $1`, setID)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	defer rows.Close()
	out := map[string]int16{}
	for rows.Next() {
		var id string
		var l int16
		if err := rows.Scan(&id, &l); err != nil {
			return nil, err
		}
		out[id] = l
	}
	return out, rows.Err()
}

// RunMean is a run's newest evaluation that has a metric, with the metric's
// stored mean: what ranking runs needs, without the rest of the evaluation.
type RunMean struct {
	EvaluationID  int64
	Run           string
	EvalSet       string
	EvalSetID     int64 // one per name and target fingerprint
	Mean          float64
	LowerIsBetter bool
	Units         int64
	Rows          int64 // more than Units when units have several draws
	MetricIndex   int32 // the metric's 1-based position in the evaluation's values
	CreatedAt     time.Time
	// Predictions reports an evaluation of predictions, whose Mean is the
	// metric over all samples rather than a mean of per-unit values.
	Predictions bool
	// NoUnits reports an evaluation without per-unit values of the metric:
	// logged with its aggregates only, or the metric is a whole-set one.
	// MetricIndex is then 0.
	NoUnits bool
}

// LatestMeans returns, for each run of experiment, its newest evaluation
// that has metric (on evalSet, or on any set when evalSet is empty), newest
// first.
func (s *Store) LatestMeans(ctx context.Context, experiment, evalSet, metric string) ([]RunMean, error) {
	// One index probe per run (evaluations_run_newest_idx) finds its newest
	// evaluation with the metric.
	rows, err := s.pool.Query(ctx, `
		SELECT e.id, r.name, s.name, s.id, e.mean, e.lower, e.n_units, e.n_scored_rows, coalesce(e.metric_index, 0), e.created_at, e.task IS NOT NULL,
		       e.aggregates_only OR e.metric_index IS NULL
		FROM runs r
		JOIN experiments x ON x.id = r.experiment_id
		CROSS JOIN LATERAL (
			SELECT e.id, e.evaluation_set_id, (e.aggregates ->> $3)::double precision AS mean,
			       $3 = ANY (e.lower_is_better) AS lower, e.n_units, e.n_scored_rows,
			       array_position(e.metrics, $3) AS metric_index, e.created_at, e.task, e.aggregates_only
			FROM evaluations e
			WHERE e.run_id = r.id AND e.aggregates ? $3
			  AND ($2 = '' OR e.evaluation_set_id IN (SELECT id FROM evaluation_sets WHERE name = $2))
			ORDER BY e.created_at DESC, e.id DESC
			LIMIT 1) e
		JOIN evaluation_sets s ON s.id = e.evaluation_set_id
		WHERE x.name = $1
		ORDER BY e.created_at DESC, e.id DESC`, experiment, evalSet, metric)
	if err != nil {
		return nil, fmt.Errorf("latest means: %w", err)
	}
	defer rows.Close()
	var out []RunMean
	for rows.Next() {
		var m RunMean
		if err := rows.Scan(&m.EvaluationID, &m.Run, &m.EvalSet, &m.EvalSetID, &m.Mean, &m.LowerIsBetter, &m.Units, &m.Rows, &m.MetricIndex, &m.CreatedAt, &m.Predictions, &m.NoUnits); err != nil {
			return nil, fmt.Errorf("latest means: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

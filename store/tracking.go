package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ParamConflictError reports a log that gives a param of a run another
// value than the one the run already has: params describe how a run was
// trained, and are fixed once logged. Old and New are the two values as
// JSON. It wraps ErrConflict.
type ParamConflictError struct {
	Run      string
	Param    string
	Old, New string
}

func (e *ParamConflictError) Error() string {
	return fmt.Sprintf("param %s of run %s is %s, and this log gives %s; nothing was stored: "+
		"a run's params are fixed once logged (new params may be added), so log the new value as a new run",
		namePreview(e.Param), namePreview(e.Run), e.Old, e.New)
}

func (e *ParamConflictError) Unwrap() error { return ErrConflict }

// StepConflictError reports a log of a step the run already has an
// evaluation of, on the same evaluation set, with other content. It wraps
// ErrConflict.
type StepConflictError struct {
	Run, EvalSet string
	Step         int64
	EvaluationID int64 // the evaluation stored at the step
}

func (e *StepConflictError) Error() string {
	return fmt.Sprintf("run %s already has evaluation %d on %s at step %d, logged with other content; nothing was stored: "+
		"a run has one evaluation per evaluation set and step (a retry must send the same content, or the same idempotency key)",
		namePreview(e.Run), e.EvaluationID, namePreview(e.EvalSet), e.Step)
}

func (e *StepConflictError) Unwrap() error { return ErrConflict }

// tagValues is the run's tags ev gives: each of Tags with the value
// "true", then TagValues.
func (ev NewEvaluation) tagValues() map[string]string {
	out := make(map[string]string, len(ev.Tags)+len(ev.TagValues))
	for _, t := range ev.Tags {
		out[t] = "true"
	}
	maps.Copy(out, ev.TagValues)
	return out
}

// checkTags refuses a tag key that is empty or holds '=' (KEY=VALUE is
// how a key and its value are written), and keys and values that break
// the limits of names.
func checkTags(ev NewEvaluation) error {
	tags := ev.tagValues()
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		switch {
		case strings.TrimSpace(k) == "":
			return fmt.Errorf("%w: a tag has an empty key", ErrBadInput)
		case strings.Contains(k, "="):
			return fmt.Errorf("%w: the tag %s holds '=': give a tag as a key and a value (KEY=VALUE is split at its first '=')", ErrBadInput, namePreview(k))
		}
		if err := checkName("tag", k); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if err := checkName("value of tag "+namePreview(k)+":", tags[k]); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	return nil
}

// GroupConflictError reports a log that puts a run in another group than
// the one it belongs to. It wraps ErrConflict.
type GroupConflictError struct {
	Run, Old, New string
}

func (e *GroupConflictError) Error() string {
	return fmt.Sprintf("run %q belongs to group %q, and this log gives group %q; nothing was stored: a run is one training of one configuration, so log the other configuration as a new run", e.Run, e.Old, e.New)
}

func (e *GroupConflictError) Unwrap() error { return ErrConflict }

// checkGroup refuses a log that gives the run another group than its own.
// With lock, the run's row is locked until tx ends, as checkParams locks
// it. A run that does not exist yet conflicts with nothing; two logs that
// create it at once in two groups leave it in the first one's, and the
// second's upsert keeps it so (the group is written only where it is
// NULL).
func checkGroup(ctx context.Context, q querier, ev NewEvaluation, lock bool) error {
	if ev.Group == "" {
		return nil
	}
	forUpdate := ""
	if lock {
		forUpdate = " FOR UPDATE OF r"
	}
	var old *string
	err := q.QueryRow(ctx, `
		SELECT r.config_group FROM runs r JOIN experiments x ON x.id = r.experiment_id
		WHERE x.name = $1 AND r.name = $2`+forUpdate, ev.Experiment, ev.Run).Scan(&old)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && (old == nil || *old == ev.Group) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check the run's group: %w", err)
	}
	return &GroupConflictError{Run: ev.Run, Old: *old, New: ev.Group}
}

// checkParams refuses params that give a param of the run another value
// than the one it has, with a *ParamConflictError naming the first such
// param in key order. JSON values compare as jsonb does: numbers by
// value (0.1 = 0.10), objects whatever their key order. A run that does
// not exist yet conflicts with nothing. With lock, the run's row is locked
// until tx ends, so that no concurrent log changes its params between the
// check and the log's write.
func checkParams(ctx context.Context, q querier, ev NewEvaluation, lock bool) error {
	if len(ev.Params) == 0 {
		return nil
	}
	forUpdate := ""
	if lock {
		forUpdate = " FOR UPDATE OF r"
	}
	var runID int64
	err := q.QueryRow(ctx, `
		SELECT r.id FROM runs r JOIN experiments x ON x.id = r.experiment_id
		WHERE x.name = $1 AND r.name = $2`+forUpdate, ev.Experiment, ev.Run).Scan(&runID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check the run's params: %w", err)
	}
	c := &ParamConflictError{Run: ev.Run}
	err = q.QueryRow(ctx, `
		SELECT o.key, o.value::text, n.value::text
		FROM runs r
		CROSS JOIN LATERAL jsonb_each(r.params) AS o
		JOIN jsonb_each($2::jsonb) AS n ON n.key = o.key
		WHERE r.id = $1 AND o.value <> n.value
		ORDER BY o.key COLLATE "C"
		LIMIT 1`, runID, ev.Params).Scan(&c.Param, &c.Old, &c.New)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check the run's params: %w", err)
	}
	return c
}

// checkStep refuses a new evaluation at a step the run already has on an
// evaluation set of the same name. The caller holds the run's row locked
// (the log's upsert of the run), so that two logs of one step cannot both
// pass.
func checkStep(ctx context.Context, tx pgx.Tx, ev NewEvaluation, runID int64) error {
	if ev.Step == nil {
		return nil
	}
	var id int64
	err := tx.QueryRow(ctx, `
		SELECT e.id FROM evaluations e
		JOIN evaluation_sets s ON s.id = e.evaluation_set_id
		WHERE e.run_id = $1 AND s.name = $2 AND e.step = $3
		ORDER BY e.id
		LIMIT 1`, runID, ev.EvalSet, *ev.Step).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("look for an evaluation at step %d: %w", *ev.Step, err)
	}
	return &StepConflictError{Run: ev.Run, EvalSet: ev.EvalSet, Step: *ev.Step, EvaluationID: id}
}

// EvaluationAtStep returns a run's evaluation at a step: on evalSet when
// it is not empty, else on the run's only evaluation set with an
// evaluation at that step. ErrNotFound, saying which steps the run has,
// when there is none; ErrSeveralEvalSets, naming the sets, when evalSet is
// empty and several sets have one. A run has at most one evaluation per
// set name and step (NewEvaluation.Step); should an older writer have
// stored two, the newest counts.
func (s *Store) EvaluationAtStep(ctx context.Context, experiment, run, evalSet string, step int64) (*Evaluation, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+evaluationColumns+evaluationFrom+`
		WHERE x.name = $1 AND r.name = $2 AND ($3 = '' OR s.name = $3) AND e.step = $4
		ORDER BY e.created_at DESC, e.id DESC`, experiment, run, evalSet, step)
	if err != nil {
		return nil, fmt.Errorf("evaluation at step %d: %w", step, err)
	}
	evals, err := scanEvaluations(rows)
	if err != nil {
		return nil, fmt.Errorf("evaluation at step %d: %w", step, err)
	}
	if len(evals) == 0 {
		steps, err := s.runSteps(ctx, experiment, run, evalSet)
		if err != nil {
			return nil, err
		}
		has := "it has no evaluation with a step"
		if len(steps) > 0 {
			has = "its steps are " + steps
		}
		return nil, fmt.Errorf("run %q of experiment %q has no evaluation at step %d%s (%s): %w", run, experiment, step, onSet(evalSet), has, ErrNotFound)
	}
	sets := map[string]bool{}
	for _, e := range evals {
		sets[e.EvalSet] = true
	}
	if len(sets) > 1 {
		return nil, fmt.Errorf("%w: run %q has evaluations at step %d on %s; name one", ErrSeveralEvalSets, run, step, strings.Join(slices.Sorted(maps.Keys(sets)), ", "))
	}
	return &evals[0], nil
}

// runSteps lists, for a message, the steps a run has evaluations at (on
// evalSet, or any), at most 20 of them.
func (s *Store) runSteps(ctx context.Context, experiment, run, evalSet string) (string, error) {
	var steps []int64
	var n int
	err := s.pool.QueryRow(ctx, `
		SELECT coalesce((array_agg(DISTINCT e.step ORDER BY e.step))[1:20], '{}'), count(DISTINCT e.step)
		FROM evaluations e
		JOIN runs r ON r.id = e.run_id
		JOIN experiments x ON x.id = r.experiment_id
		JOIN evaluation_sets s ON s.id = e.evaluation_set_id
		WHERE x.name = $1 AND r.name = $2 AND ($3 = '' OR s.name = $3) AND e.step IS NOT NULL`,
		experiment, run, evalSet).Scan(&steps, &n)
	if err != nil {
		return "", fmt.Errorf("list the run's steps: %w", err)
	}
	parts := make([]string, len(steps))
	for i, st := range steps {
		parts[i] = fmt.Sprint(st)
	}
	out := strings.Join(parts, ", ")
	if n > len(steps) {
		out += fmt.Sprintf(", ... (%d in all)", n)
	}
	return out, nil
}

// StepEvaluations returns a run's evaluations that have a step, on
// evalSet (or, when it is empty, on the one evaluation set the run's
// steps are on), by step, with their means in Aggregates: the points of a
// training curve. Evaluations without a step are left out. It returns an
// empty list when the run has no step there; ErrNotFound when there is no
// such run; ErrSeveralEvalSets, naming the sets, when evalSet is empty
// and the run has steps on several.
func (s *Store) StepEvaluations(ctx context.Context, experiment, run, evalSet string) ([]Evaluation, error) {
	if _, err := s.GetRun(ctx, experiment, run); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("experiment %q has no run %q: %w", experiment, run, ErrNotFound)
		}
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+evaluationColumns+evaluationFrom+`
		WHERE x.name = $1 AND r.name = $2 AND ($3 = '' OR s.name = $3) AND e.step IS NOT NULL
		ORDER BY e.step, e.created_at, e.id`, experiment, run, evalSet)
	if err != nil {
		return nil, fmt.Errorf("step evaluations: %w", err)
	}
	evals, err := scanEvaluations(rows)
	if err != nil {
		return nil, fmt.Errorf("step evaluations: %w", err)
	}
	sets := map[string]bool{}
	for _, e := range evals {
		sets[e.EvalSet] = true
	}
	if len(sets) > 1 {
		return nil, fmt.Errorf("%w: run %q has steps on %s; name one", ErrSeveralEvalSets, run, strings.Join(slices.Sorted(maps.Keys(sets)), ", "))
	}
	if evals == nil {
		evals = []Evaluation{}
	}
	return evals, nil
}

// scanEvaluations reads every row of rows, and closes it.
func scanEvaluations(rows pgx.Rows) ([]Evaluation, error) {
	defer rows.Close()
	var out []Evaluation
	for rows.Next() {
		e, err := scanEvaluation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *e)
	}
	return out, rows.Err()
}

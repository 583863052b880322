package compare

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/store"
)

// CurveRequest is a training curve: the mean of a metric, with its
// bootstrap interval, at each step of one or more runs (the evaluations
// logged with a step).
type CurveRequest struct {
	Experiment string   `req:"experiment" short:"e" required:"true" arg:"NAME" help:"experiment of the runs"`
	Runs       []string `req:"run" short:"r" required:"true" arg:"RUN" help:"run whose evaluations with a step are drawn (repeatable)"`
	EvalSet    string   `req:"eval_set" short:"s" arg:"NAME" help:"evaluation set of the steps (default: the runs' only one)"`
	Metric     string   `req:"metric" short:"m" required:"true" arg:"METRIC" help:"metric whose mean is drawn at each step"`
	Intervals
}

// CurvePoint is a run's mean of the metric at one step, with the bootstrap
// interval of its per-unit values. A run's evaluation without per-unit
// values of the metric (logged with its aggregates only, or a whole-set
// metric) has its mean with NaN bounds.
type CurvePoint struct {
	Run          string    `json:"run"`
	Step         int64     `json:"step"`
	EvaluationID int64     `json:"evaluation_id"`
	Mean         float64   `json:"mean"`
	Low          float64   `json:"mean_ci_low"`
	High         float64   `json:"mean_ci_high"`
	Units        int64     `json:"n_units"`
	LoggedAt     time.Time `json:"logged_at"`
}

// TrainingCurve is the points of a training curve, each run's in step
// order, the runs in the order asked.
type TrainingCurve struct {
	Experiment    string       `json:"experiment"`
	EvalSet       string       `json:"evaluation_set"`
	Metric        string       `json:"metric"`
	LowerIsBetter bool         `json:"lower_is_better"`
	Confidence    float64      `json:"confidence"`
	Resamples     int          `json:"resamples"`
	Seed          uint64       `json:"seed"`
	Runs          []string     `json:"runs"`
	Points        []CurvePoint `json:"points"`
}

// Curve reads each run's evaluations with a step (store.StepEvaluations)
// and gives, for each that has the metric, its mean with the bootstrap
// interval of its per-unit values, as ValuesOverTime does for the history.
// A run with no step evaluation of the metric is refused with
// ErrNoEvaluations, and runs whose steps are on different evaluation sets
// with store.ErrSeveralEvalSets.
func Curve(ctx context.Context, st *store.Store, req CurveRequest) (*TrainingCurve, error) {
	if len(req.Runs) == 0 {
		return nil, request.Errorf("{run} is required")
	}
	opts := req.Intervals.Options()
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	opts = opts.resolved()
	c := &TrainingCurve{Experiment: req.Experiment, EvalSet: req.EvalSet, Metric: req.Metric,
		Confidence: opts.Confidence, Resamples: opts.Resamples, Seed: opts.Seed, Points: []CurvePoint{}}
	var evals []store.Evaluation
	for _, run := range req.Runs {
		if slices.Contains(c.Runs, run) {
			continue
		}
		c.Runs = append(c.Runs, run)
		es, err := st.StepEvaluations(ctx, req.Experiment, run, req.EvalSet)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range es {
			if _, ok := e.Aggregates[req.Metric]; !ok && !slices.Contains(e.Metrics, req.Metric) {
				continue
			}
			if c.EvalSet == "" {
				c.EvalSet = e.EvalSet
			}
			if e.EvalSet != c.EvalSet {
				return nil, fmt.Errorf("%w: the runs' steps are on %s and %s; name one", store.ErrSeveralEvalSets, c.EvalSet, e.EvalSet)
			}
			c.LowerIsBetter = c.LowerIsBetter || slices.Contains(e.LowerIsBetter, req.Metric)
			evals = append(evals, e)
			n++
		}
		if n == 0 {
			where := ""
			if req.EvalSet != "" {
				where = " on " + req.EvalSet
			}
			if len(es) == 0 {
				return nil, fmt.Errorf("%w: run %q of experiment %q has no evaluation with a step%s", ErrNoEvaluations, run, req.Experiment, where)
			}
			return nil, fmt.Errorf("%w: no evaluation with a step of run %q%s has %s; its metrics: %s", ErrNoEvaluations, run, where, req.Metric, strings.Join(es[0].Metrics, ", "))
		}
	}
	c.Points = make([]CurvePoint, len(evals))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, e := range evals {
		g.Go(func() error {
			p := CurvePoint{Run: e.Run, Step: *e.Step, EvaluationID: e.ID, Units: e.Units, LoggedAt: e.CreatedAt,
				Mean: e.Aggregates[req.Metric], Low: math.NaN(), High: math.NaN()}
			if !e.AggregatesOnly && slices.Contains(e.Metrics, req.Metric) {
				rm := store.RunMean{EvaluationID: e.ID, Run: e.Run, EvalSet: e.EvalSet, EvalSetID: e.EvalSetID, Units: e.Units,
					Rows: e.Rows, CreatedAt: e.CreatedAt, Predictions: e.Predictions != nil}
				row, err := leaderboardEntry(gctx, st, nil, &rm, req.Metric, opts, nil)
				if err != nil {
					return fmt.Errorf("%s at step %d: %w", e.Run, *e.Step, err)
				}
				p.Mean, p.Low, p.High = row.Mean.Estimate, row.Mean.Low, row.Mean.High
			}
			c.Points[i] = p
			return nil
		})
	}
	return c, g.Wait()
}

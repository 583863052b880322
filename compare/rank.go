package compare

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// RankedRun is one run of a ranking.
type RankedRun struct {
	Name         string  `json:"name"`
	EvaluationID int64   `json:"evaluation_id"`
	AvgRank      float64 `json:"avg_rank"`
	// Mean is the run's mean over the blocks, on the metric's own scale.
	Mean float64 `json:"mean"`
}

// Ranking is a Friedman test over K runs: blocks (units, or evaluation
// sets) rank the runs, best = 1 for the metric's direction, ties averaged.
type Ranking struct {
	Metric string `json:"metric"`
	// Units counts the blocks.
	Units int `json:"n_units"`
	// Runs are best first.
	Runs     []RankedRun          `json:"runs"`
	Friedman stats.FriedmanResult `json:"friedman"`
	// Cliques are the maximal groups of runs, in rank order, whose average
	// ranks differ by less than the Nemenyi critical difference.
	Cliques [][]string `json:"cliques"`
	// Control is the run the Holm comparisons are against.
	Control   string    `json:"control"`
	Alpha     float64   `json:"-"`
	Direction Direction `json:"-"`
	// Sets names the blocks of a ranking across evaluation sets.
	Sets []string `json:"-"`
	// Recorded holds the IDs of the comparisons recorded, one per Holm test.
	Recorded []int64 `json:"-"`
}

// RankQuery is what Rank is asked for.
type RankQuery struct {
	// Evaluations are the runs' evaluations, two or more, on one
	// evaluation set.
	Evaluations []*store.Evaluation
	Metric      string
	// Control is the run Holm's tests compare with; empty means the best.
	Control string
	Alpha   float64
	// Record stores each Holm comparison in the history.
	Record bool
	// Sentence writes the recorded verdict of the comparison of the control
	// with one run; front ends pass report.RankVerdict.
	Sentence func(*Ranking, stats.HolmComparison) string
}

// Rank ranks K evaluations over the units present in all of them (Demšar
// 2006): each unit is a block, the runs are ranked within it, and a
// Friedman test with the Iman–Davenport correction says whether they differ
// at all; the Nemenyi critical difference and Holm's step-down tests
// against the control say which do. Lower-is-better metrics are ranked with
// the lowest value first.
func Rank(ctx context.Context, st *store.Store, q RankQuery) (*Ranking, error) {
	if len(q.Evaluations) < 2 {
		return nil, invalidf("ranking takes at least two evaluations, got %d", len(q.Evaluations))
	}
	if q.Metric == "" {
		return nil, invalidf("name the metric to rank on")
	}
	evals := q.Evaluations
	var names []string
	for _, e := range evals {
		if err := e.Pairable(); err != nil {
			return nil, err
		}
		if e.EvalSetID != evals[0].EvalSetID {
			return nil, fmt.Errorf("%w: evaluations %d and %d were scored on different evaluation sets or targets; a ranking needs one", store.ErrNotComparable, evals[0].ID, e.ID)
		}
		name := e.Run
		if slices.Contains(names, name) {
			name = evaluationName(e)
		}
		names = append(names, name)
	}
	var lower [][]string
	for _, e := range evals {
		lower = append(lower, e.LowerIsBetter)
	}
	dir := DirectionOf(q.Metric, lower...)
	r, err := rankPushedDown(ctx, st, evals, names, q, dir)
	if err != nil {
		return nil, err
	}
	if r == nil {
		units, values, _, err := st.UnitMatrix(ctx, evals, q.Metric)
		if err != nil {
			return nil, err
		}
		if len(units) == 0 {
			return nil, fmt.Errorf("%w: the evaluations share no unit", ErrNothingShared)
		}
		cols := make([][]float64, len(evals))
		for j := range cols {
			cols[j] = make([]float64, len(values))
			for u := range values {
				cols[j][u] = values[u][j]
			}
		}
		if r, err = rankColumns(q.Metric, dir, names, cols, q.Alpha, q.Control); err != nil {
			return nil, err
		}
	}
	for i := range r.Runs {
		r.Runs[i].EvaluationID = evals[slices.Index(names, r.Runs[i].Name)].ID
	}
	if q.Record {
		if r.Recorded, err = recordRank(ctx, st, evals, names, r, q.Sentence); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// RankAcrossSets ranks runs of an experiment with evaluation sets (data
// sets) as blocks, as in Demšar 2006: a run's value on a set is its newest
// evaluation's mean of the metric there, and the blocks are the sets every
// run has. It records nothing.
func RankAcrossSets(ctx context.Context, st *store.Store, experiment string, runs []string, metric, control string, alpha float64) (*Ranking, error) {
	if experiment == "" {
		return nil, invalidf("ranking across evaluation sets ranks runs of an experiment; name it")
	}
	if len(runs) < 2 || metric == "" {
		return nil, invalidf("ranking takes a metric and at least two runs, got %d", len(runs))
	}
	perSet := map[string][]float64{}
	var lower [][]string
	for j, run := range runs {
		evals, err := st.ListEvaluations(ctx, store.EvaluationFilter{Experiment: experiment, Run: run})
		if err != nil {
			return nil, err
		}
		if len(evals) == 0 {
			return nil, fmt.Errorf("%w: run %q of experiment %q has no evaluation", store.ErrNotFound, run, experiment)
		}
		seen := map[string]bool{}
		for _, e := range evals { // newest first
			mean, ok := e.Aggregates[metric]
			if !ok || seen[e.EvalSet] {
				continue
			}
			seen[e.EvalSet] = true
			lower = append(lower, e.LowerIsBetter)
			if perSet[e.EvalSet] == nil {
				perSet[e.EvalSet] = make([]float64, len(runs))
				for k := range perSet[e.EvalSet] {
					perSet[e.EvalSet][k] = math.NaN()
				}
			}
			perSet[e.EvalSet][j] = mean
		}
	}
	var sets []string
	for set, row := range perSet {
		if !slices.ContainsFunc(row, math.IsNaN) {
			sets = append(sets, set)
		}
	}
	slices.Sort(sets)
	if len(sets) < 2 {
		return nil, fmt.Errorf("%w: the runs share %d evaluation sets with %s; ranking across data sets needs at least 2", ErrNothingShared, len(sets), metric)
	}
	cols := make([][]float64, len(runs))
	for j := range cols {
		for _, set := range sets {
			cols[j] = append(cols[j], perSet[set][j])
		}
	}
	r, err := rankColumns(metric, DirectionOf(metric, lower...), runs, cols, alpha, control)
	if err != nil {
		return nil, err
	}
	r.Sets = sets
	return r, nil
}

// rankPushedDown ranks evals on a distributed database where each shard
// ranks its own units (store.RankSums): 2 to store.RankSumsMaxRuns
// evaluations of one row per unit, values in fixed point. It returns nil,
// and the caller reads the units, where it does not apply.
func rankPushedDown(ctx context.Context, st *store.Store, evals []*store.Evaluation, names []string, q RankQuery, dir Direction) (*Ranking, error) {
	if len(evals) > store.RankSumsMaxRuns || slices.ContainsFunc(evals, func(e *store.Evaluation) bool { return e.Units != e.ScoredRows }) {
		return nil, nil
	}
	if distributed, err := st.Distributed(ctx); err != nil || !distributed {
		return nil, err
	}
	rs, err := st.RankSums(ctx, evals, q.Metric, dir.Lower())
	if err != nil || rs.Outside > 0 {
		return nil, err
	}
	if rs.Ranks.Blocks == 0 {
		return nil, fmt.Errorf("%w: the evaluations share no unit", ErrNothingShared)
	}
	means := make([]float64, len(evals))
	for j, sum := range rs.Sums {
		means[j] = stats.MeanOfSum(sum, stats.FixedScale, rs.Ranks.Blocks)
	}
	return rankSums(q.Metric, dir, names, rs.Ranks, means, q.Alpha, q.Control)
}

// rankColumns ranks the runs named by names on cols (cols[j][b] is run j's
// value on block b): a Friedman test oriented by dir, Holm against control
// (the best run when empty), and the cliques.
func rankColumns(metric string, dir Direction, names []string, cols [][]float64, alpha float64, control string) (*Ranking, error) {
	blocks := len(cols[0])
	gains := make([][]float64, blocks)
	for b := range gains {
		gains[b] = make([]float64, len(cols))
		for j := range cols {
			// Friedman ranks the highest value first.
			gains[b][j] = dir.Gain(cols[j][b])
		}
	}
	for b, row := range gains {
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: %s's value on block %d is %v", stats.ErrNotFinite, names[j], b, v)
			}
		}
	}
	means := make([]float64, len(cols))
	for j, col := range cols {
		means[j] = stats.ExactMean(col)
	}
	return rankSums(metric, dir, names, stats.RankSumsOf(gains), means, alpha, control)
}

// rankSums ranks the runs named by names from their rank sums over the
// blocks and their means there: rankColumns' Ranking.
func rankSums(metric string, dir Direction, names []string, sums stats.RankSums, means []float64, alpha float64, control string) (*Ranking, error) {
	blocks := int(sums.Blocks)
	opts := stats.FriedmanOptions{Names: names, Alpha: alpha}
	if control == "" {
		first, err := stats.FriedmanOfSums(sums, opts)
		if err != nil {
			return nil, err
		}
		best := 0
		for j, r := range first.AvgRanks {
			if r < first.AvgRanks[best] {
				best = j
			}
		}
		control = names[best]
	}
	if !slices.Contains(names, control) {
		return nil, invalidf("control %q is not among the runs (%s)", control, strings.Join(names, ", "))
	}
	opts.Control = control
	fr, err := stats.FriedmanOfSums(sums, opts)
	if err != nil {
		return nil, err
	}
	r := &Ranking{Metric: metric, Units: blocks, Friedman: fr, Control: control, Alpha: cmp.Or(alpha, stats.DefaultAlpha), Direction: dir}
	for j, n := range names {
		r.Runs = append(r.Runs, RankedRun{Name: n, AvgRank: fr.AvgRanks[j], Mean: means[j]})
	}
	slices.SortStableFunc(r.Runs, func(a, b RankedRun) int {
		switch {
		case a.AvgRank < b.AvgRank:
			return -1
		case a.AvgRank > b.AvgRank:
			return 1
		}
		return 0
	})
	r.Cliques = cliques(r.Runs, fr.CD)
	return r, nil
}

// cliques groups runs, in rank order, into maximal runs of consecutive runs
// whose average ranks differ by less than the critical difference; groups
// contained in another are dropped.
func cliques(runs []RankedRun, cd float64) [][]string {
	out := [][]string{}
	lastEnd := -1
	for i := range runs {
		j := i
		for j+1 < len(runs) && runs[j+1].AvgRank-runs[i].AvgRank < cd {
			j++
		}
		if j > i && j > lastEnd {
			var g []string
			for _, r := range runs[i : j+1] {
				g = append(g, r.Name)
			}
			out = append(out, g)
			lastEnd = j
		}
	}
	return out
}

// recordRank records each Holm comparison of the control with another run
// in the history, as method "friedman+holm": the means are the metric's,
// the p-values Holm's raw and adjusted ones, distinguishable is Holm's
// rejection, and the winner the run with the better average rank; the whole
// ranking is kept in outputs. It returns the recorded IDs.
func recordRank(ctx context.Context, st *store.Store, evals []*store.Evaluation, names []string, r *Ranking, sentence func(*Ranking, stats.HolmComparison) string) ([]int64, error) {
	ci := slices.Index(names, r.Control)
	means := map[string]float64{}
	for _, run := range r.Runs {
		means[run.Name] = run.Mean
	}
	var ids []int64
	err := st.InTx(ctx, func(tx *store.Tx) error {
		ids = nil
		for _, h := range r.Friedman.Holm {
			j := slices.Index(names, h.Name)
			winner := ""
			if h.Rejected {
				winner = "left"
				if r.Friedman.AvgRanks[j] < r.Friedman.AvgRanks[ci] {
					winner = "right"
				}
			}
			verdict := ""
			if sentence != nil {
				verdict = sentence(r, h)
			}
			z := h.Z
			id, err := tx.RecordComparison(ctx, store.ComparisonRecord{
				LeftID: evals[ci].ID, RightID: evals[j].ID, Metric: r.Metric,
				LowerIsBetter: r.Direction.Lower(), Method: "friedman+holm",
				Alpha: r.Alpha, Adjustment: "holm", N: int64(r.Units),
				LeftMean: means[r.Control], RightMean: means[h.Name], Estimate: means[r.Control] - means[h.Name],
				Low: math.NaN(), High: math.NaN(), Statistic: &z,
				PValue: h.PValue, PAdjusted: h.PAdjusted, Distinguishable: h.Rejected, Winner: winner,
				Verdict: verdict, Parameters: map[string]any{"control": r.Control, "alpha": r.Alpha}, Outputs: r,
			})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

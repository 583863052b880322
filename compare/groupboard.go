package compare

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// RowSeeds is what a row of a leaderboard by group (LeaderboardQuery.ByGroup)
// holds beside the run's fields: the group's runs and how they spread.
type RowSeeds struct {
	// Runs name the group's runs, and Evaluations the newest evaluation of
	// each that was ranked, in the same order.
	Runs        []string `json:"runs"`
	Evaluations []int64  `json:"evaluations"`
	// RunSD is the standard deviation of the runs' means over the users:
	// how far the seeds of this configuration land apart (0 with one
	// run).
	RunSD float64 `json:"run_sd"`
	// PRunBeatsReference is the share of pairs of a run of this group and
	// a run of the reference in which this group's run is better, ties
	// counted half; nil on the reference's own row.
	PRunBeatsReference *float64 `json:"p_run_beats_reference"`
}

// groupBoard ranks the groups of runs of q.Experiment (configurations,
// each trained with several seeds) by the mean of their runs' newest
// evaluations over the users all of them share: each group's mean has
// its two-level bootstrap interval (stats.SeedMean), and each group's
// difference to the reference group (q.Baseline, else the best) its
// two-level bootstrap test (stats.SeedBootstrap), Holm-adjusted across the
// rows and decided with stats.Decide. Runs of no group are counted, not
// ranked.
func groupBoard(ctx context.Context, st *store.Store, q LeaderboardQuery) (*Leaderboard, error) {
	runs, err := st.ListRuns(ctx, q.Experiment)
	if err != nil {
		return nil, err
	}
	lb := &Leaderboard{Metric: q.Metric, ByGroup: true, Options: q.Options.resolved(), Method: TwoLevelBootstrap}
	members := map[string][]string{}
	for _, r := range runs {
		if r.Group == "" {
			lb.Ungrouped++
			continue
		}
		members[r.Group] = append(members[r.Group], r.Name)
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("%w: no run of experiment %s is in a group (runs join one when they are logged with it)", store.ErrNotFound, q.Experiment)
	}
	type group struct {
		name  string
		evals []*store.Evaluation
		runs  [][]float64
		mean  stats.Interval
	}
	var groups []*group
	var all []*store.Evaluation
	for _, name := range slices.Sorted(maps.Keys(members)) {
		g := &group{name: name}
		slices.Sort(members[name])
		for _, run := range members[name] {
			e, err := st.LatestEvaluation(ctx, q.Experiment, run, q.EvalSet)
			if err != nil {
				return nil, fmt.Errorf("run %s of group %s: %w", run, name, err)
			}
			if len(all) > 0 && e.EvalSetID != all[0].EvalSetID {
				return nil, fmt.Errorf("%w: runs %s (evaluation %d) and %s (evaluation %d) were evaluated on different evaluation sets or targets; a leaderboard by group ranks runs of one",
					store.ErrNotComparable, all[0].Run, all[0].ID, e.Run, e.ID)
			}
			g.evals = append(g.evals, e)
			all = append(all, e)
		}
		groups = append(groups, g)
	}
	units, values, _, err := st.UnitMatrix(ctx, all, q.Metric)
	if err != nil {
		return nil, err
	}
	if len(units) == 0 {
		return nil, fmt.Errorf("%w: no unit was evaluated by every run of the groups", ErrNothingShared)
	}
	var lower [][]string
	for _, e := range all {
		lower = append(lower, e.LowerIsBetter)
	}
	dir := DirectionOf(q.Metric, lower...)
	lb.Direction, lb.LowerIsBetter, lb.EvalSet, lb.Groups, lb.Runs = dir, dir.Lower(), all[0].EvalSet, len(groups), len(all)
	seedOpts := stats.SeedOptions{Confidence: q.Options.confidence(), Resamples: q.Options.resamples(), Seed: q.Options.Seed, Context: ctx}
	first := 0
	for _, g := range groups {
		g.runs = runColumns(values, first, len(g.evals))
		first += len(g.evals)
		if g.mean, _, _, err = stats.SeedMean(g.runs, seedOpts); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return dir.Cmp(a.mean.Estimate, b.mean.Estimate) })
	ref := 0
	if q.Baseline != "" {
		if ref = slices.IndexFunc(groups, func(g *group) bool { return g.name == q.Baseline }); ref < 0 {
			return nil, fmt.Errorf("%w: baseline %q is not a group of experiment %s (its groups are %s)", store.ErrNotFound, q.Baseline, q.Experiment,
				strings.Join(slices.Sorted(maps.Keys(members)), ", "))
		}
	}
	lb.Reference = groups[ref].name
	var ps []float64
	for i, g := range groups {
		if q.Limit != 0 && i >= q.Limit && i != ref {
			continue
		}
		row := LeaderboardRow{Rank: i + 1, Run: g.name, Mean: g.mean, Units: int64(len(units)),
			Seeds: &RowSeeds{RunSD: runSD(g.runs)}}
		for _, e := range g.evals {
			row.Seeds.Runs, row.Seeds.Evaluations = append(row.Seeds.Runs, e.Run), append(row.Seeds.Evaluations, e.ID)
			if e.CreatedAt.After(row.LoggedAt) {
				row.LoggedAt = e.CreatedAt
			}
		}
		if i != ref {
			res, err := stats.SeedBootstrap(groups[ref].runs, g.runs, seedOpts)
			if err != nil {
				return nil, err
			}
			d := stats.Interval{Estimate: res.Difference, Low: res.CILow, High: res.CIHigh, Confidence: res.Confidence}
			beats := res.BBeatsA
			if dir.Lower() {
				beats = 1 - beats
			}
			row.Difference, row.PValue, row.Seeds.PRunBeatsReference = &d, &res.PValue, &beats
			ps = append(ps, res.PValue)
		}
		lb.Rows = append(lb.Rows, row)
	}
	if len(ps) > 0 {
		adj, err := stats.AdjustPValues(ps, stats.AdjustHolm)
		if err != nil {
			return nil, err
		}
		k := 0
		for i := range lb.Rows {
			r := &lb.Rows[i]
			if r.Difference == nil {
				continue
			}
			p := adj.Adjusted[k]
			k++
			r.PAdjusted = &p
			r.Distinguishable = stats.Decide(p, q.Options.alpha(), *r.Difference).Distinguishable
			r.SameGroup = !r.Distinguishable
			switch {
			case !r.Distinguishable:
				lb.Group = append(lb.Group, r.Run)
			case dir.Gain(r.Difference.Estimate) > 0: // reference − group
				r.Better = Baseline
			default:
				r.Better = Candidate
			}
		}
	}
	return lb, nil
}

// runSD is the standard deviation of the runs' means (0 with one run).
func runSD(runs [][]float64) float64 {
	if len(runs) < 2 {
		return 0
	}
	means := make([]float64, len(runs))
	for j, run := range runs {
		for _, v := range run {
			means[j] += v
		}
		means[j] /= float64(len(run))
	}
	_, sd := stat.MeanStdDev(means, nil)
	return sd
}

package compare

import (
	"context"
	"fmt"
	"math/big"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// leaderboardAuto is the method of a leaderboard's rows when the query
// asks for no number of resamples: the t, as a comparison chooses it
// (autoMethod), when every run shown has at least AutoTMinUnits units of
// one row each; nil keeps the bootstrap. Units is the fewest units of a
// run shown.
func leaderboardAuto(means []store.RunMean, opts Options) *AutoChoice {
	if opts.Resamples != 0 || opts.Resampling != ResamplingAuto || opts.Method != "" || len(means) == 0 {
		return nil
	}
	units := means[0].Units
	for _, m := range means {
		if m.Rows != m.Units || m.Predictions || m.NoUnits {
			return nil
		}
		units = min(units, m.Units)
	}
	if units < AutoTMinUnits {
		return nil
	}
	return &AutoChoice{Method: PairedT, Units: units, MinUnits: AutoTMinUnits}
}

// leaderboardRowsT computes the rows of means, means[refCol] the
// reference, by the t: each run's mean with the t interval of its values,
// and each other run's difference reference − run with the paired t's
// interval and p-value, all from exact sums (stats.PairedSummary), so the
// numbers do not depend on where or in which order the units were summed.
// cols holds the runs' values when the caller read them; otherwise, on a
// distributed database, the workers sum each run's values and each pair's
// differences (store.Tx.SummarizeValues, Summarize) and a few hundred
// bytes a run reach the caller. On one server, and for a run with a value
// outside fixed point, each run is paired with the reference and summed
// here, to the same sums.
func leaderboardRowsT(ctx context.Context, st *store.Store, means []store.RunMean, refCol int, metric string, opts Options, cols [][]float64) ([]LeaderboardRow, error) {
	m := len(means)
	meanSum, diffSum := make([]*stats.PairedSummary, m), make([]*stats.PairedSummary, m)
	var err error
	switch {
	case cols != nil:
		err = sumColumns(means, refCol, cols, meanSum, diffSum)
	default:
		var distributed bool
		if distributed, err = st.Distributed(ctx); err == nil && distributed {
			err = sumPushedDown(ctx, st, means, refCol, metric, meanSum, diffSum)
		}
		if err == nil {
			err = sumPaired(ctx, st, means, refCol, metric, meanSum, diffSum)
		}
	}
	if err != nil {
		return nil, err
	}
	rows := make([]LeaderboardRow, m)
	conf := opts.confidence()
	for k, e := range means {
		rows[k] = LeaderboardRow{Run: e.Run, EvaluationID: e.EvaluationID, Units: e.Units, LoggedAt: e.CreatedAt, SameGroup: k == refCol}
		mean, err := meanSum[k].PairedT(stats.PairedTOptions{Confidence: conf})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Run, err)
		}
		rows[k].Mean = stats.Interval{Estimate: mean.MeanDiff, Low: mean.CILow, High: mean.CIHigh, Confidence: conf}
		if k == refCol {
			continue
		}
		d, err := diffSum[k].PairedT(stats.PairedTOptions{Confidence: conf})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Run, err)
		}
		p := d.PValue
		rows[k].Difference = &stats.Interval{Estimate: d.MeanDiff, Low: d.CILow, High: d.CIHigh, Confidence: conf}
		rows[k].PValue = &p
	}
	return rows, nil
}

// meanRowT is the row of a run with no reference (scored against other
// targets): its mean with the t interval of its values, summed on the
// workers on a distributed database.
func meanRowT(ctx context.Context, st *store.Store, e *store.RunMean, metric string, opts Options) (LeaderboardRow, error) {
	rows, err := leaderboardRowsT(ctx, st, []store.RunMean{*e}, 0, metric, opts, nil)
	if err != nil {
		return LeaderboardRow{}, err
	}
	rows[0].SameGroup = false
	return rows[0], nil
}

// againstZero pairs n values, value(i) the ith, with zeros, as float32
// pairs: the pairs whose differences are the values themselves.
func againstZero(n int, value func(i int) float32) []float32 {
	p := make([]float32, 2*n)
	for i := range n {
		p[2*i] = value(i)
	}
	return p
}

// valuesSummary is the exact summary of n values against zeros, value(i)
// the ith: its SumDiff is Σ v and its SumDiffSq Σ v², what a mean's t
// interval reads.
func valuesSummary(n int, value func(i int) float32) (stats.PairedSummary, error) {
	return stats.SummarizePairs32(againstZero(n, value))
}

// sumColumns sums the runs' values read as columns, cols[k] run k's.
func sumColumns(means []store.RunMean, refCol int, cols [][]float64, meanSum, diffSum []*stats.PairedSummary) error {
	for k, c := range cols {
		s, err := valuesSummary(len(c), func(i int) float32 { return float32(c[i]) })
		if err != nil {
			return fmt.Errorf("%s: %w", means[k].Run, err)
		}
		meanSum[k] = &s
		if k == refCol {
			continue
		}
		d, err := stats.SummarizePairs32(pairedColumns(cols[refCol], c))
		if err != nil {
			return fmt.Errorf("%s: %w", means[k].Run, err)
		}
		diffSum[k] = &d
	}
	return nil
}

// pairedColumns interleaves the reference's column r and a run's c as
// the stored float32 pairs they were widened from, each run's value made
// the reference's where the two are equal within storage precision.
func pairedColumns(r, c []float64) []float32 {
	p := make([]float32, 2*len(c))
	for i := range c {
		p[2*i], p[2*i+1] = float32(r[i]), float32(c[i])
	}
	equalizeWithinStorage32(p)
	return p
}

// sumPushedDown has the database sum what it can, in one transaction:
// each run's values, and each run's differences from the reference. A
// run with a value outside fixed point is left unset, for sumPaired.
func sumPushedDown(ctx context.Context, st *store.Store, means []store.RunMean, refCol int, metric string, meanSum, diffSum []*stats.PairedSummary) error {
	return st.InTx(ctx, func(tx *store.Tx) error {
		ref := means[refCol]
		for k, e := range means {
			v, err := tx.SummarizeValues(ctx, e.EvaluationID, metric)
			if err != nil {
				return err
			}
			if v.Outside == 0 {
				meanSum[k] = &stats.PairedSummary{N: v.N, Scale: stats.FixedScale,
					SumLeft: v.Sum, SumRight: new(big.Int), SumDiff: v.Sum, SumDiffSq: v.SumSq}
			}
			if k == refCol {
				continue
			}
			d, err := tx.Summarize(ctx, ref.EvaluationID, e.EvaluationID, metric, false)
			if err != nil {
				return err
			}
			if d.Outside == 0 && d.LeftOnly == 0 && d.RightOnly == 0 {
				diffSum[k] = &stats.PairedSummary{N: d.N, Greater: d.Greater, Less: d.Less, NonBinary: d.NonBinary, Scale: stats.FixedScale,
					SumLeft: d.SumLeft, SumRight: d.SumRight, SumDiff: d.SumDiff, SumDiffSq: d.SumDiffSq}
			}
		}
		return nil
	})
}

// sumPaired sums, for every run whose sums are not set, its values and
// its differences from the reference, paired with it as the bootstrap
// pairs them and summed exactly in Go: the same sums the database gives.
// The reference's own values come from its first pairing, else from its
// pairing with itself.
func sumPaired(ctx context.Context, st *store.Store, means []store.RunMean, refCol int, metric string, meanSum, diffSum []*stats.PairedSummary) error {
	ref := means[refCol]
	pair := func(id int64) ([]float32, error) {
		var mp *store.MetricPairs
		err := st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			mp, err = tx.PairMetrics(ctx, ref.EvaluationID, id, []string{metric}, store.PairOptions{})
			return err
		})
		if err != nil {
			return nil, err
		}
		if !mp.OneRow() {
			return nil, fmt.Errorf("evaluations %d and %d have several rows per unit", ref.EvaluationID, id)
		}
		if leftOnly, rightOnly := mp.Unpaired(); leftOnly != 0 || rightOnly != 0 {
			return nil, fmt.Errorf("%w: evaluations %d and %d do not have the same units", store.ErrNotComparable, ref.EvaluationID, id)
		}
		v := mp.Values32(0)
		mp.Release(0)
		return v, nil
	}
	for k, e := range means {
		if k == refCol || meanSum[k] != nil && diffSum[k] != nil {
			continue
		}
		v, err := pair(e.EvaluationID)
		if err != nil {
			return err
		}
		n := len(v) / 2
		if meanSum[refCol] == nil {
			s, err := valuesSummary(n, func(i int) float32 { return v[2*i] })
			if err != nil {
				return fmt.Errorf("%s: %w", ref.Run, err)
			}
			meanSum[refCol] = &s
		}
		if meanSum[k] == nil {
			s, err := valuesSummary(n, func(i int) float32 { return v[2*i+1] })
			if err != nil {
				return fmt.Errorf("%s: %w", e.Run, err)
			}
			meanSum[k] = &s
		}
		if diffSum[k] == nil {
			equalizeWithinStorage32(v)
			d, err := stats.SummarizePairs32(v)
			if err != nil {
				return fmt.Errorf("%s: %w", e.Run, err)
			}
			diffSum[k] = &d
		}
	}
	if meanSum[refCol] == nil {
		v, err := pair(ref.EvaluationID)
		if err != nil {
			return err
		}
		s, err := valuesSummary(len(v)/2, func(i int) float32 { return v[2*i] })
		if err != nil {
			return fmt.Errorf("%s: %w", ref.Run, err)
		}
		meanSum[refCol] = &s
	}
	return nil
}

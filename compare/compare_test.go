package compare_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// memRows is per-unit scores held in memory, as store.Rows: one metric's
// vals, or, when metrics is set, a row of each metric's values per ID.
type memRows struct {
	metric  string
	ids     []string
	vals    []float64
	metrics []string
	rows    [][]float64
	i       int
}

func (r *memRows) Metrics() []string {
	if r.metrics != nil {
		return r.metrics
	}
	return []string{r.metric}
}
func (r *memRows) HasDraw() bool    { return false }
func (r *memRows) Next() bool       { r.i++; return r.i <= len(r.ids) }
func (r *memRows) SampleID() string { return r.ids[r.i-1] }
func (r *memRows) Draw() int64      { return 0 }
func (r *memRows) Values() []float64 {
	if r.rows != nil {
		return r.rows[r.i-1]
	}
	return []float64{r.vals[r.i-1]}
}
func (r *memRows) Where() string          { return fmt.Sprintf("row %d", r.i) }
func (r *memRows) Err() error             { return nil }
func (r *memRows) Progress() (a, b int64) { return 0, 0 }

// direction is one of the two directions a metric can have, with the data
// that make run "good" better than run "poor" in it.
type direction struct {
	name   string
	metric string
	lower  bool
}

var directions = []direction{
	{"higher is better", "ndcg", false},
	{"lower is better", "logloss", true},
}

// fixture is a database with three runs of one experiment, logged on the
// same 300 users: "good" is better than "poor" by 0.05 on two users in
// three, for the metric's direction, and "same" equals "poor". With a
// lower-is-better metric "good" therefore has the LOWER mean, and must win.
type fixture struct {
	st               *store.Store
	good, poor, same *store.Evaluation
	dir              direction
}

func setup(t *testing.T, d direction) fixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	f := fixture{st: st, dir: d}
	ids := make([]string, 300)
	base := make([]float64, 300)
	for u := range ids {
		ids[u] = fmt.Sprintf("user-%03d", u)
		base[u] = 0.2 + 0.5*float64((u*37)%100)/100 // spread over [0.2, 0.7)
	}
	log := func(run string, shift float64) *store.Evaluation {
		vals := slices.Clone(base)
		for u := range vals {
			if u%3 != 0 {
				if d.lower {
					vals[u] -= shift // a lower loss is better
				} else {
					vals[u] += shift
				}
			}
		}
		ev := store.NewEvaluation{Experiment: "exp", Run: run, EvalSet: "test"}
		if d.lower {
			ev.LowerIsBetter = []string{d.metric}
		}
		l, err := st.LogEvaluation(ctx, ev, &memRows{metric: d.metric, ids: ids, vals: vals})
		require.NoError(t, err)
		return &l.Evaluation
	}
	f.poor = log("poor", 0)
	f.good = log("good", 0.05)
	f.same = log("same", 0)
	return f
}

// TestDirectionEveryCommand runs every decision on data where the better
// run has the higher mean for a higher-is-better metric and the lower mean
// for a lower-is-better one, and checks that each names the better run, in
// its fields and in its words.
func TestDirectionEveryCommand(t *testing.T) {
	t.Parallel()
	for _, d := range directions {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t, d)
			ctx := context.Background()
			gap := 0.05 * 200 / 300 // two users in three gain 0.05

			t.Run("compare", func(t *testing.T) {
				for _, tc := range []struct {
					base, cand *store.Evaluation
					winner     compare.Side
					regression bool
				}{
					{f.poor, f.good, compare.Candidate, false},
					{f.good, f.poor, compare.Baseline, true},
				} {
					c, err := compare.Evaluations(ctx, f.st, tc.base, tc.cand, compare.Options{Sentence: report.Verdict})
					require.NoError(t, err)
					r := c.Metrics[0]
					require.Equal(t, d.lower, r.LowerIsBetter)
					require.True(t, r.Distinguishable)
					require.Equal(t, tc.winner, r.Winner)
					require.Equal(t, tc.regression, r.Regression())
					require.Equal(t, "good", r.Name(r.Winner))
					require.Equal(t, "poor", r.Name(r.Loser()))
					// The winner's lead is positive whatever the direction.
					require.InDelta(t, gap, r.Gap().Estimate, 1e-6)
					require.Greater(t, r.Gap().Low, 0.0)
					// Counts follow the direction: 200 users improve.
					better, worse := 200, 0
					if tc.winner == compare.Baseline {
						better, worse = 0, 200
					}
					require.Equal(t, better, r.CandidateBetter)
					require.Equal(t, worse, r.CandidateWorse)
					require.Equal(t, 100, r.Same)
					// The sentence names the winner first, both runs and the metric.
					require.True(t, strings.HasPrefix(r.Verdict, fmt.Sprintf("good beats poor on %s by 0.0333 (", d.metric)), r.Verdict)
					if d.lower {
						require.Contains(t, r.Verdict, "lower is better")
					}
					require.NotContains(t, r.Verdict, "poor beats")
				}
			})

			t.Run("scores", func(t *testing.T) {
				pairs, err := f.st.Pair(ctx, f.poor.ID, f.good.ID, d.metric, false)
				require.NoError(t, err)
				left, right := map[string]float64{}, map[string]float64{}
				for i, id := range pairs.SampleIDs {
					left[id], right[id] = pairs.LeftSum[i], pairs.RightSum[i]
				}
				dir := compare.HigherIsBetter
				if d.lower {
					dir = compare.LowerIsBetter
				}
				c, err := compare.Scores(context.Background(), d.metric, dir, compare.Named{Name: "poor", Scores: left}, compare.Named{Name: "good", Scores: right},
					compare.Options{Sentence: report.Verdict})
				require.NoError(t, err)
				r := c.Metrics[0]
				require.Equal(t, compare.Candidate, r.Winner)
				require.Equal(t, 200, r.CandidateBetter)
				require.True(t, strings.HasPrefix(r.Verdict, "good beats poor on "+d.metric), r.Verdict)
			})

			t.Run("leaderboard", func(t *testing.T) {
				lb, err := compare.NewLeaderboard(ctx, f.st, compare.LeaderboardQuery{Experiment: "exp", Metric: d.metric, Ranks: true})
				require.NoError(t, err)
				require.Equal(t, "good", lb.Reference, "the better run leads")
				require.Equal(t, "good", lb.Rows[0].Run)
				require.Equal(t, 1, lb.Rows[0].Rank)
				for _, r := range lb.Rows[1:] {
					require.True(t, r.Distinguishable, r.Run)
					require.Equal(t, compare.Baseline, r.Better, "%s is worse than the reference", r.Run)
				}
				require.Empty(t, lb.Group, "no run is indistinguishable from good, and good is not listed with itself")
				require.NotNil(t, lb.Ranking)
				require.Equal(t, "good", lb.Ranking.Runs[0].Name, "good ranks first user by user")

				lb, err = compare.NewLeaderboard(ctx, f.st, compare.LeaderboardQuery{Experiment: "exp", Metric: d.metric, Baseline: "poor"})
				require.NoError(t, err)
				i := slices.IndexFunc(lb.Rows, func(r compare.LeaderboardRow) bool { return r.Run == "good" })
				require.Equal(t, compare.Candidate, lb.Rows[i].Better, "good beats the baseline poor")
				require.Equal(t, []string{"same"}, lb.Group, "same equals poor")
			})

			t.Run("rank", func(t *testing.T) {
				r, err := compare.Rank(ctx, f.st, compare.RankQuery{Evaluations: []*store.Evaluation{f.poor, f.good, f.same}, Metric: d.metric,
					Record: true, Sentence: report.RankVerdict})
				require.NoError(t, err)
				require.Equal(t, "good", r.Runs[0].Name)
				require.Equal(t, "good", r.Control, "the best run is the control")
				require.Less(t, r.Runs[0].AvgRank, r.Runs[1].AvgRank)
				// The mean stays on the metric's own scale.
				require.InDelta(t, f.good.Aggregates[d.metric], r.Runs[0].Mean, 1e-6)
				hist, err := compare.History(ctx, f.st, store.HistoryFilter{Experiment: "exp"})
				require.NoError(t, err)
				require.Len(t, hist, 2)
				for _, h := range hist {
					require.Equal(t, "friedman+holm", h.Method)
					require.Equal(t, "baseline", h.Winner, "the control, good, wins")
					require.True(t, strings.HasPrefix(h.Verdict, "good ranks better than "), h.Verdict)
				}
			})

			t.Run("diff", func(t *testing.T) {
				res, err := compare.Diff(ctx, f.st, f.good, f.poor, compare.DiffQuery{Metric: d.metric, N: 5})
				require.NoError(t, err)
				require.Equal(t, 200, res.CandidateWorse)
				require.Equal(t, 0, res.CandidateBetter)
				require.Equal(t, 100, res.Same)
				for _, row := range res.Top {
					// The worst users are those where poor lost 0.05.
					require.InDelta(t, 0.05, math.Abs(row.Difference), 1e-6, row.SampleID)
					require.Equal(t, d.lower, row.Candidate > row.Baseline, "poor is worse: higher for a loss")
				}
				best, err := compare.Diff(ctx, f.st, f.good, f.poor, compare.DiffQuery{Metric: d.metric, N: 5, Best: true})
				require.NoError(t, err)
				for _, row := range best.Top {
					require.Equal(t, 0.0, row.Difference, "poor improves on nobody; the best it does is the same")
				}
			})

			t.Run("experiment", func(t *testing.T) {
				x, err := compare.Summarize(ctx, f.st, compare.ExperimentQuery{Experiment: "exp"})
				require.NoError(t, err)
				require.Len(t, x.Leaderboards, 1)
				require.Equal(t, "good", x.Leaderboards[0].Rows[0].Run)
				page, err := report.ExperimentPage(x, x.History[0].CreatedAt, "test")
				require.NoError(t, err)
				var b strings.Builder
				require.NoError(t, page.WriteHTML(&b))
				require.Contains(t, b.String(), "good ranks better than")
			})
		})
	}
}

// TestEqualMeansAtFloatPrecision gives three units whose scores differ by
// 1e-9, far below the single precision verdict stores values at: the means
// are equal, nothing is distinguishable, no interval excludes zero and no
// count is given, let alone an overflowed one.
func TestEqualMeansAtFloatPrecision(t *testing.T) {
	t.Parallel()
	left := map[string]float64{"u1": 0.5, "u2": 0.25, "u3": 0.75}
	right := map[string]float64{"u1": 0.5 + 1e-9, "u2": 0.25 + 1e-9, "u3": 0.75 + 1e-9}
	c, err := compare.Scores(context.Background(), "ndcg@10", compare.HigherIsBetter, compare.Named{Name: "a", Scores: left}, compare.Named{Name: "b", Scores: right},
		compare.Options{Sentence: report.Verdict})
	require.NoError(t, err)
	r := c.Metrics[0]
	require.False(t, r.Distinguishable)
	require.False(t, r.IntervalExcludesZero)
	require.Equal(t, 0.0, r.Difference.Estimate)
	require.Equal(t, 1.0, r.PValue)
	require.Equal(t, 3, r.Same)
	require.Nil(t, r.NRequired)
	require.Equal(t, compare.HintEqualMeans, r.Hint)
	require.Contains(t, r.Verdict, "The means are equal, so no number of units would separate them.")
	require.NotContains(t, r.Verdict, "2147483647")

	// A real difference of 1e-9 on scores of that size is no rounding:
	// every unit differs by the same amount, and the observed variance
	// gives no count rather than a nonsensical one.
	left = map[string]float64{"u1": 0, "u2": 0, "u3": 0}
	right = map[string]float64{"u1": 1e-9, "u2": 1e-9, "u3": 1e-9}
	c, err = compare.Scores(context.Background(), "", compare.HigherIsBetter, compare.Named{Scores: left}, compare.Named{Scores: right}, compare.Options{Sentence: report.Verdict})
	require.NoError(t, err)
	r = c.Metrics[0]
	require.False(t, r.Distinguishable, "three units cannot reach p < 0.05")
	require.Nil(t, r.NRequired)
	require.Equal(t, compare.HintUnattainable, r.Hint, "three differing units: the sign-flip test's smallest p is 0.25")
	require.True(t, strings.HasPrefix(r.Verdict, "left and right are not distinguishable (n = 3)"), r.Verdict)
	require.Contains(t, r.Verdict, "which excludes zero, but p = ")
	require.NotContains(t, r.Verdict, "2147483647")
}

// TestSampleSizeHintFromObservedVariance checks the hint against the
// paired formula n = (z_0.975 + z_0.8)²·Var(d)/δ², computed here from the
// differences themselves.
func TestSampleSizeHintFromObservedVariance(t *testing.T) {
	t.Parallel()
	left, right := map[string]float64{}, map[string]float64{}
	var d []float64
	for u := range 40 {
		id := fmt.Sprintf("u%02d", u)
		left[id] = float64(u%7) / 10
		right[id] = float64(u%5) / 10
		d = append(d, left[id]-right[id])
	}
	mean, ss := 0.0, 0.0
	for _, x := range d {
		mean += x / float64(len(d))
	}
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	variance := ss / float64(len(d)-1)
	const z = 1.959963984540054 + 0.8416212335729143 // z_{0.975} + z_{0.8}
	want := math.Ceil(z * z * variance / (mean * mean))
	c, err := compare.Scores(context.Background(), "m", compare.HigherIsBetter, compare.Named{Scores: left}, compare.Named{Scores: right}, compare.Options{})
	require.NoError(t, err)
	r := c.Metrics[0]
	require.Equal(t, compare.HintCount, r.Hint)
	require.NotNil(t, r.NRequired)
	// Rounded up to two significant figures.
	step := math.Pow10(max(0, int(math.Floor(math.Log10(want)))-1))
	require.Equal(t, int(math.Ceil(want/step)*step), *r.NRequired)
}

func TestParseMethodListsEveryMethod(t *testing.T) {
	t.Parallel()
	for _, m := range compare.Methods() {
		got, err := compare.ParseMethod(string(m))
		require.NoError(t, err)
		require.Equal(t, m, got)
	}
	_, err := compare.ParseMethod("ttest")
	require.ErrorIs(t, err, compare.ErrInvalid)
	for _, m := range compare.Methods() {
		require.Contains(t, err.Error(), string(m))
	}
}

// TestNullRejectionRate compares 2000 datasets of 30 units whose two sides
// have the same mean (a shared base score per unit plus independent noise,
// so the sides are exchangeable): a decision must then find a winner at
// most at rate alpha = 0.05. The randomisation p alone rejects at rate
// 100/2001 (with continuous data the Monte Carlo test is exact), inside the
// 99.9 % band of Binomial(2000, 0.05), and so must the decision, which
// also requires the interval to exclude zero. Each dataset gets its own seed, so that
// rejections are independent draws.
func TestNullRejectionRate(t *testing.T) {
	t.Parallel()
	const datasets, n, alpha = 2000, 30, 0.05
	rng := rand.New(rand.NewPCG(2026, 11))
	rejected, distinguishable := 0, 0
	for d := range datasets {
		left, right := map[string]float64{}, map[string]float64{}
		for i := range n {
			id := fmt.Sprintf("u%02d", i)
			base := rng.Float64()
			left[id] = base + 0.2*rng.NormFloat64()
			right[id] = base + 0.2*rng.NormFloat64()
		}
		c, err := compare.Scores(context.Background(), "m", compare.HigherIsBetter, compare.Named{Scores: left}, compare.Named{Scores: right},
			compare.Options{Alpha: alpha, Seed: uint64(d)})
		require.NoError(t, err)
		r := c.Metrics[0]
		if r.PValue < alpha {
			rejected++
		}
		if r.Distinguishable {
			distinguishable++
		}
	}
	x := distuv.Binomial{N: datasets, P: alpha}
	lo, hi := 0, datasets
	for ; x.CDF(float64(lo)) <= 0.0005; lo++ {
	}
	for ; x.Survival(float64(hi-1)) <= 0.0005; hi-- {
	}
	t.Logf("rejected %d, distinguishable %d of %d; 99.9 %% band [%d, %d]", rejected, distinguishable, datasets, lo, hi)
	require.True(t, lo <= rejected && rejected <= hi, "randomization rejected %d of %d, band [%d, %d]", rejected, datasets, lo, hi)
	require.True(t, lo <= distinguishable && distinguishable <= hi, "compare distinguished %d of %d, band [%d, %d]", distinguishable, datasets, lo, hi)
}

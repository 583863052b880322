package compare_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// seedRuns simulates configurations trained with several seeds: user u of
// every run scores user[u] + shift + the run's seed effect + noise, each a
// multiple of 1/4096 so that the stored float32 values are exact.
func seedRuns(rng *rand.Rand, users []float64, runs int, shift, seedSD float64) [][]float64 {
	out := make([][]float64, runs)
	for j := range out {
		s := rng.NormFloat64() * seedSD
		out[j] = make([]float64, len(users))
		for u, v := range users {
			out[j][u] = float64(int((v+shift+s+rng.NormFloat64()*0.05)*4096)) / 4096
		}
	}
	return out
}

// logGroup logs each run of a group as a run of experiment exp, named
// GROUP-sJ, with metric "score" and its mirror "loss" = 1 − score, which
// is lower-is-better. skip leaves one user out of the first run.
func logGroup(t *testing.T, st *store.Store, exp, group string, runs [][]float64, skip string) {
	t.Helper()
	for j, vals := range runs {
		var ids []string
		var rows [][]float64
		for u, v := range vals {
			id := fmt.Sprintf("user-%03d", u)
			if j == 0 && id == skip {
				continue
			}
			ids = append(ids, id)
			rows = append(rows, []float64{v, 1 - v})
		}
		_, err := st.LogEvaluation(context.Background(), store.NewEvaluation{Experiment: exp, Run: fmt.Sprintf("%s-s%d", group, j+1),
			EvalSet: "test", Group: group, LowerIsBetter: []string{"loss"}}, &memRows{metrics: []string{"score", "loss"}, ids: ids, rows: rows})
		require.NoError(t, err)
	}
}

// TestGroupsIsTheSeedBootstrapOfTheRuns compares two groups of three runs
// through compare.Request, as every front door does, and checks each
// number against stats.SeedBootstrap of the same values (whose own
// references are NumPy's and statsmodels', stats/testdata/reference/
// gen_seeds.py): the difference, its interval and p, the variance
// components, and the share of run pairs the candidate wins, for a metric
// where higher is better and its mirror where lower is.
func TestGroupsIsTheSeedBootstrapOfTheRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)

	rng := rand.New(rand.NewPCG(27, 1))
	users := make([]float64, 40)
	for u := range users {
		users[u] = 0.5 + rng.NormFloat64()*0.1
	}
	a := seedRuns(rng, users, 3, 0, 0.02)
	b := seedRuns(rng, users, 3, 0.01, 0.02)
	logGroup(t, st, "seeds", "cfg-a", a, "")
	logGroup(t, st, "seeds", "cfg-b", b, "")
	// A run of no group, and one of a third group, are not compared.
	logGroup(t, st, "seeds", "cfg-c", a[:1], "")

	req := compare.Request{Pair: compare.Pair{Experiment: "seeds", Baseline: "cfg-a", Candidate: "cfg-b"}, Groups: true}
	req.Alpha, req.Confidence, req.Resamples, req.Resampling = 0.05, 0.95, new(2000), "auto"
	res, err := req.Run(ctx, st, nil, true, report.Verdict)
	require.NoError(t, err)
	require.Len(t, res.Metrics, 2)
	want, err := stats.SeedBootstrap(a, b, stats.SeedOptions{})
	require.NoError(t, err)
	for _, r := range res.Metrics {
		sign := 1.0
		if r.Metric == "loss" {
			sign = -1
			require.True(t, r.LowerIsBetter)
		}
		require.Equal(t, compare.TwoLevelBootstrap, r.Method)
		require.Equal(t, 40, r.N)
		require.InDelta(t, sign*want.Difference, r.Difference.Estimate, 1e-12, r.Metric)
		require.InDelta(t, want.CIHigh-want.CILow, r.Difference.High-r.Difference.Low, 1e-9, r.Metric)
		require.InDelta(t, want.PValue, r.PValue, 1e-9, r.Metric)
		s := r.Seeds
		require.NotNil(t, s)
		require.Equal(t, []string{"cfg-a-s1", "cfg-a-s2", "cfg-a-s3"}, s.BaselineRuns)
		require.Equal(t, []string{"cfg-b-s1", "cfg-b-s2", "cfg-b-s3"}, s.CandidateRuns)
		require.InDelta(t, want.SE, s.SE, 1e-9)
		require.InDelta(t, want.DF, s.DF, 1e-9)
		require.InDelta(t, want.A.Seed, s.Baseline.Seed, 1e-12)
		require.InDelta(t, want.B.User, s.Candidate.User, 1e-12)
		require.InDelta(t, want.RunToRun, s.RunToRun, 1e-12)
		// The candidate's runs are better where its means are higher for
		// score, and where they are lower for loss: the same pairs.
		require.InDelta(t, want.BBeatsA, s.PCandidateRunBetter, 1e-12, r.Metric)
		require.Nil(t, r.ComparisonID, "a comparison of groups is not recorded")
		require.Equal(t, s.RunToRun >= abs(want.Difference), s.SeedNoiseDominates)
		require.Contains(t, r.Verdict, "Two-level bootstrap of 3 runs of cfg-a, 3 of cfg-b and the users")
		require.Contains(t, r.Verdict, "A single run of cfg-b beats a single run of cfg-a in")
	}
	hist, err := st.History(ctx, store.HistoryFilter{Experiment: "seeds"})
	require.NoError(t, err)
	require.Empty(t, hist)

	// The same seeds give the same answer, bit for bit.
	again, err := req.Run(ctx, st, nil, false, report.Verdict)
	require.NoError(t, err)
	require.Equal(t, res.Metrics[0].Difference, again.Metrics[0].Difference)
	require.Equal(t, res.Metrics[0].Verdict, again.Metrics[0].Verdict)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestGroupsSaySeedNoise checks the sentence against the data that decide
// it: configurations 0.3 apart with little seed noise are told apart and
// seed noise does not dominate; equal configurations with seed SD 0.05
// are not, and two runs differ by more than their gap. A user absent from
// one run makes other targets: refused, else, with AllowDifferentTargets,
// left out of every run and counted in every format.
func TestGroupsSaySeedNoise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	rng := rand.New(rand.NewPCG(5, 5))
	users := make([]float64, 50)
	for u := range users {
		users[u] = 0.4 + rng.NormFloat64()*0.1
	}
	logGroup(t, st, "far", "small", seedRuns(rng, users, 4, 0, 0.005), "")
	logGroup(t, st, "far", "large", seedRuns(rng, users, 4, 0.3, 0.005), "user-007")
	logGroup(t, st, "near", "small", seedRuns(rng, users, 4, 0, 0.05), "")
	logGroup(t, st, "near", "large", seedRuns(rng, users, 4, 0, 0.05), "")

	q := compare.GroupsQuery{Experiment: "far", Baseline: "small", Candidate: "large"}
	_, err = compare.Groups(ctx, st, q, compare.Options{Metrics: []string{"score"}})
	require.ErrorIs(t, err, store.ErrNotComparable, "a run scored on other users has other targets")
	far, err := compare.Groups(ctx, st, q, compare.Options{Metrics: []string{"score"}, AllowDifferentTargets: true, Sentence: report.Verdict})
	require.NoError(t, err)
	r := far.Metrics[0]
	require.Equal(t, compare.Candidate, r.Winner)
	require.Equal(t, 49, r.N)
	require.EqualValues(t, 1, r.Seeds.DroppedUnits)
	require.False(t, r.Seeds.SeedNoiseDominates)
	require.Equal(t, 1.0, r.Seeds.PCandidateRunBetter)
	require.Contains(t, r.Verdict, "large beats small on score by 0.")
	require.Contains(t, r.Verdict, "less than the gap")
	require.Contains(t, r.Verdict, "in 100% of the 16 pairs of runs")
	for _, format := range []string{"table", "markdown"} {
		var b strings.Builder
		require.NoError(t, report.Comparison(&b, format, far))
		require.Contains(t, b.String(), "dropped: 1 unit that some run was not evaluated on, left out of every run", format)
		require.Contains(t, b.String(), "not recorded in the history", format)
	}

	near, err := compare.Groups(ctx, st, compare.GroupsQuery{Experiment: "near", Baseline: "small", Candidate: "large"},
		compare.Options{Metrics: []string{"score"}, Sentence: report.Verdict})
	require.NoError(t, err)
	r = near.Metrics[0]
	require.Equal(t, compare.Neither, r.Winner)
	require.True(t, r.Seeds.SeedNoiseDominates)
	require.Contains(t, r.Verdict, "small and large are not distinguishable on score")
	require.Contains(t, r.Verdict, "Seed noise dominates: two runs of one configuration typically differ by")
	require.Zero(t, r.Seeds.DroppedUnits)
}

// TestGroupsRefuse checks what a comparison of groups refuses, in the
// words of each refusal.
func TestGroupsRefuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	rng := rand.New(rand.NewPCG(1, 2))
	users := []float64{0.1, 0.2, 0.3, 0.4}
	logGroup(t, st, "exp", "a", seedRuns(rng, users, 2, 0, 0.01), "")
	logGroup(t, st, "exp", "b", seedRuns(rng, users, 2, 0, 0.01), "")

	_, err = compare.Groups(ctx, st, compare.GroupsQuery{Experiment: "exp", Baseline: "a", Candidate: "nope"}, compare.Options{})
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorContains(t, err, `no run of experiment exp is in group "nope" (its groups are a, b; a run joins a group when it is logged with one)`)

	for _, c := range []struct {
		req  compare.Request
		want string
	}{
		{compare.Request{Pair: compare.Pair{Baseline: "a", Candidate: "b"}, Groups: true}, "{groups} compares groups of runs of an experiment: give {experiment}"},
		{compare.Request{Pair: compare.Pair{Experiment: "exp", Baseline: "a", Candidate: "b"}, Groups: true, Method: "t"}, "{groups} compares by the two-level bootstrap of runs and users: it takes no {method}"},
		{compare.Request{Pair: compare.Pair{Experiment: "exp", Baseline: "a", Candidate: "a"}, Groups: true}, `{groups}: the baseline and the candidate are the same group, "a"`},
		{compare.Request{Pair: compare.Pair{Experiment: "exp", Baseline: "a", Candidate: "b"}, Groups: true, FDR: "lond"}, "a comparison of {groups} is not recorded in the history, so it cannot be a test of the {fdr} stream"},
	} {
		_, _, err := c.req.Options(true)
		require.Error(t, err)
		require.Equal(t, strings.NewReplacer("{", "", "}", "").Replace(c.want), err.Error())
	}
}

// TestSingleRunsOfGroupsNoteTheSeeds checks that a comparison of one run
// of each of two groups says that it does not count the seeds, and how to
// count them, while runs without groups, or of one group, get no note.
func TestSingleRunsOfGroupsNoteTheSeeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	rng := rand.New(rand.NewPCG(3, 4))
	users := make([]float64, 30)
	for u := range users {
		users[u] = rng.Float64()
	}
	logGroup(t, st, "exp", "cfg a", seedRuns(rng, users, 2, 0, 0.01), "")
	logGroup(t, st, "exp", "cfg-b", seedRuns(rng, users, 1, 0, 0.01), "")
	find := func(run string) *store.Evaluation {
		e, err := st.LatestEvaluation(ctx, "exp", run, "")
		require.NoError(t, err)
		return e
	}
	res, err := compare.Evaluations(ctx, st, find("cfg a-s1"), find("cfg-b-s1"), compare.Options{Metrics: []string{"score"}})
	require.NoError(t, err)
	var w *compare.Warning
	for i, x := range res.Metrics[0].Warnings {
		if x.Code == "seed-variance-not-counted" {
			w = &res.Metrics[0].Warnings[i]
		}
	}
	require.NotNil(t, w)
	require.Equal(t, []string{"cfg a", "cfg-b"}, w.Groups)
	require.Contains(t, report.WarningText(*w), "count both with verdict compare -e exp --groups 'cfg a' cfg-b.")

	res, err = compare.Evaluations(ctx, st, find("cfg a-s1"), find("cfg a-s2"), compare.Options{Metrics: []string{"score"}})
	require.NoError(t, err)
	for _, x := range res.Metrics[0].Warnings {
		require.NotEqual(t, "seed-variance-not-counted", x.Code, "two seeds of one configuration")
	}
}

// TestLeaderboardByGroup ranks three groups of runs and checks every row
// against stats.SeedMean and stats.SeedBootstrap of the same values: the
// order for the metric's direction (best first, lowest first for the
// loss), the reference, the differences, the share of run pairs, the
// Holm adjustment across the rows, and the runs of no group counted.
func TestLeaderboardByGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	rng := rand.New(rand.NewPCG(11, 12))
	users := make([]float64, 40)
	for u := range users {
		users[u] = 0.5 + rng.NormFloat64()*0.1
	}
	runs := map[string][][]float64{
		"low":  seedRuns(rng, users, 3, 0, 0.01),
		"mid":  seedRuns(rng, users, 2, 0.05, 0.01),
		"high": seedRuns(rng, users, 4, 0.2, 0.01),
	}
	for g, r := range runs {
		logGroup(t, st, "board", g, r, "")
	}
	_, err = st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "board", Run: "lone", EvalSet: "test", LowerIsBetter: []string{"loss"}},
		&memRows{metrics: []string{"score", "loss"}, ids: []string{"user-000"}, rows: [][]float64{{0.5, 0.5}}})
	require.NoError(t, err)

	for _, c := range []struct {
		metric, baseline string
		order            []string
	}{
		{"score", "", []string{"high", "mid", "low"}},
		{"loss", "", []string{"high", "mid", "low"}}, // loss = 1 − score: lowest first
		{"score", "mid", []string{"high", "mid", "low"}},
	} {
		req := compare.LeaderboardRequest{Experiment: "board", EvalSet: "test", Metric: c.metric, Baseline: c.baseline, ByGroup: true}
		req.Alpha, req.Confidence, req.Resamples = 0.05, 0.95, new(2000)
		lb, err := compare.NewLeaderboard(ctx, st, req.Query())
		require.NoError(t, err, c)
		require.True(t, lb.ByGroup)
		require.Equal(t, 3, lb.Groups)
		require.Equal(t, 9, lb.Runs)
		require.Equal(t, 1, lb.Ungrouped, "the run of no group")
		var got []string
		for _, r := range lb.Rows {
			got = append(got, r.Run)
		}
		require.Equal(t, c.order, got, c)
		ref := c.order[0]
		if c.baseline != "" {
			ref = c.baseline
		}
		require.Equal(t, ref, lb.Reference)
		sign := 1.0
		if c.metric == "loss" {
			sign = -1
		}
		var ps []float64
		for _, r := range lb.Rows {
			mean, _, _, err := stats.SeedMean(runs[r.Run], stats.SeedOptions{})
			require.NoError(t, err)
			require.InDelta(t, mean.High-mean.Low, r.Mean.High-r.Mean.Low, 1e-9, r.Run)
			require.Len(t, r.Seeds.Runs, len(runs[r.Run]))
			if r.Run == ref {
				require.Nil(t, r.Difference)
				require.Nil(t, r.Seeds.PRunBeatsReference)
				continue
			}
			want, err := stats.SeedBootstrap(runs[ref], runs[r.Run], stats.SeedOptions{})
			require.NoError(t, err)
			require.InDelta(t, sign*want.Difference, r.Difference.Estimate, 1e-9, r.Run)
			require.InDelta(t, want.PValue, *r.PValue, 1e-9, r.Run)
			require.InDelta(t, want.BBeatsA, *r.Seeds.PRunBeatsReference, 1e-12, r.Run)
			ps = append(ps, want.PValue)
		}
		adj, err := stats.AdjustPValues(ps, stats.AdjustHolm)
		require.NoError(t, err)
		k := 0
		for _, r := range lb.Rows {
			if r.Difference != nil {
				require.InDelta(t, adj.Adjusted[k], *r.PAdjusted, 1e-12)
				k++
			}
		}
		var b strings.Builder
		require.NoError(t, report.Leaderboard(&b, "table", lb))
		require.Contains(t, b.String(), "by group: each the mean of its runs; differences are "+ref+" minus each group")
		require.Contains(t, b.String(), "1 run of no group not ranked")
	}

	// The experiment's summary (verdict report, the web view) ranks the
	// groups too, for each metric, beside the runs.
	x, err := compare.Summarize(ctx, st, compare.ExperimentQuery{Experiment: "board", Limit: 10, Options: compare.Options{Resamples: 200}})
	require.NoError(t, err)
	require.Len(t, x.GroupBoards, 2)
	require.Equal(t, "high", x.GroupBoards[0].Reference)
	page, err := report.ExperimentPage(x, x.Generated, "test")
	require.NoError(t, err)
	require.Equal(t, "configurations", page.Sections[1].ID)
	require.Len(t, page.Sections[1].Subsections, 2)

	_, err = compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "board", EvalSet: "test", Metric: "score", Baseline: "nope", ByGroup: true})
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorContains(t, err, `baseline "nope" is not a group of experiment board (its groups are high, low, mid)`)
	logGroup(t, st, "plain", "", seedRuns(rng, users, 1, 0, 0), "")
	_, err = compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "plain", Metric: "score", ByGroup: true})
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorContains(t, err, "no run of experiment plain is in a group")
}

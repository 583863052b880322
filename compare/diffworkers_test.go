package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
)

// diffRun is n users of a run with four metrics whose differences a
// drill-down ranks differently: ndcg@10 (multiples of 1/32, a third
// zeros: many ties), latency_ms (float32 around 20, lower is better, all
// distinct), score (continuous, with a few users far out, so that one
// bucket of a counting pass holds almost everyone) and flat (the same for
// every user and run).
func diffRun(n int, seed uint64, lift float64, ids func(int) string) *wideRows {
	rng := rand.New(rand.NewPCG(seed, 5))
	r := &wideRows{metrics: []string{"ndcg@10", "latency_ms", "score", "flat"}}
	for u := range n {
		ndcg := 0.0
		if (u*7)%3 != 0 {
			ndcg = float64((u*13)%32) / 32
		}
		if rng.IntN(3) == 0 {
			ndcg = min(1, ndcg+lift)
		}
		score := rng.NormFloat64() * 1e-3
		if u%997 == 5 {
			score = 1000 * float64(1+u%3)
		}
		r.ids = append(r.ids, ids(u))
		r.vals = append(r.vals, []float64{ndcg, 20 + rng.ExpFloat64()*15 - 40*lift, score, 0.5})
	}
	return r
}

// TestDiffOnTheWorkers checks that a drill-down on a distributed database,
// which ranks the differences and lists the users on the workers, gives
// one server's result bit for bit, and that one server's (from every
// pair) agrees with its definitions: gonum's empirical quantiles of the
// differences, an exact sum, a stable sort. The workers' path also runs
// on one server with two buckets a pass and small reads, so that its
// narrowing runs many passes.
func TestDiffOnTheWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, ps := twoDeployments(t)

	const n = 3000
	user := func(u int) string { return fmt.Sprintf("user-%05d", u) }
	// Run c shares every other user of a and b, under IDs a byte order
	// and a dictionary would sort differently, and has users of its own.
	hostile := func(u int) string {
		if u%2 == 1 {
			return fmt.Sprintf("Other %d ü", u)
		}
		return user(u)
	}
	runs := []struct {
		name string
		rows func() *wideRows
	}{
		{"a", func() *wideRows { return diffRun(n, 1, 0, user) }},
		{"b", func() *wideRows { return diffRun(n, 2, 0.25, user) }},
		{"c", func() *wideRows { return diffRun(n, 3, 0.1, hostile) }},
		{"one", func() *wideRows { return diffRun(1, 4, 0, user) }},
		{"one2", func() *wideRows { return diffRun(1, 5, 0.3, user) }},
	}
	evals := map[*store.Store]map[string]*store.Evaluation{}
	for _, st := range []*store.Store{cs, ps} {
		evals[st] = map[string]*store.Evaluation{}
		for _, r := range runs {
			ev := store.NewEvaluation{Experiment: "diff", Run: r.name, EvalSet: "test-" + r.name, LowerIsBetter: []string{"latency_ms"}}
			if r.name == "one" || r.name == "one2" {
				ev.Experiment, ev.EvalSet = "diff-one", "test-one"
			}
			logged, err := st.LogEvaluation(ctx, ev, r.rows())
			require.NoError(t, err)
			e := logged.Evaluation
			evals[st][r.name] = &e
		}
	}
	normalized := func(d *compare.DiffResult) string {
		c := *d
		c.All, c.BaseEval, c.CandEval = nil, nil, nil
		b, err := json.Marshal(&c)
		require.NoError(t, err)
		return string(b)
	}
	narrow := compare.WithDiffOnWorkers(ctx, 2, 3)

	for _, pair := range [][2]string{{"a", "b"}, {"b", "a"}, {"a", "c"}, {"one", "one2"}} {
		for _, metric := range []string{"ndcg@10", "latency_ms", "score", "flat"} {
			for _, tc := range []struct {
				n    int
				best bool
			}{{10, false}, {10, true}, {1, false}, {n + 5, true}} {
				name := fmt.Sprintf("%s-%s %s N=%d best=%v", pair[0], pair[1], metric, tc.n, tc.best)
				q := compare.DiffQuery{Metric: metric, N: tc.n, Best: tc.best, AllowDifferentTargets: true}
				plain, err := compare.Diff(ctx, ps, evals[ps][pair[0]], evals[ps][pair[1]], q)
				require.NoError(t, err, name)
				require.NotNil(t, plain.All, "%s: one server reads every pair", name)
				onCitus, err := compare.Diff(ctx, cs, evals[cs][pair[0]], evals[cs][pair[1]], q)
				require.NoError(t, err, name)
				require.Nil(t, onCitus.All, "%s: the cluster keeps the pairs on its workers", name)
				require.Equal(t, normalized(plain), normalized(onCitus), "%s: the same result on both deployments", name)
				narrowed, err := compare.Diff(narrow, ps, evals[ps][pair[0]], evals[ps][pair[1]], q)
				require.NoError(t, err, name)
				require.Nil(t, narrowed.All, name)
				require.Equal(t, normalized(plain), normalized(narrowed), "%s: many narrowing passes", name)

				q.Pairs = true
				kept, err := compare.Diff(ctx, cs, evals[cs][pair[0]], evals[cs][pair[1]], q)
				require.NoError(t, err, name)
				require.Len(t, kept.All, plain.Units, "%s: asked for, the pairs come", name)
				require.Equal(t, normalized(plain), normalized(kept), name)

				checkDiffDefinitions(t, name, plain, q)
			}
		}
	}
	// Every user of c's is paired on the users a shares: half of them.
	d, err := compare.Diff(ctx, cs, evals[cs]["a"], evals[cs]["c"], compare.DiffQuery{Metric: "score", AllowDifferentTargets: true})
	require.NoError(t, err)
	require.Equal(t, n/2, d.Units)

	// A value outside fixed point: the cluster pairs the units instead,
	// and says the same.
	tiny := func(seed uint64) *wideRows {
		r := diffRun(50, seed, 0, user)
		r.vals[7][2] = 1e-20
		return r
	}
	var got []string
	for _, st := range []*store.Store{cs, ps} {
		var es []*store.Evaluation
		for i, run := range []string{"t1", "t2"} {
			logged, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "diff-tiny", Run: run, EvalSet: "test-tiny"}, tiny(uint64(i)))
			require.NoError(t, err)
			e := logged.Evaluation
			es = append(es, &e)
		}
		d, err := compare.Diff(ctx, st, es[0], es[1], compare.DiffQuery{Metric: "score"})
		require.NoError(t, err)
		require.NotNil(t, d.All, "a value outside fixed point: every pair is read")
		got = append(got, normalized(d))
	}
	require.Equal(t, got[0], got[1])

	// Units on neither side in common: the same error on both.
	for _, st := range []*store.Store{cs, ps} {
		var es []*store.Evaluation
		for i, prefix := range []string{"left", "right"} {
			r := diffRun(20, uint64(i), 0, func(u int) string { return fmt.Sprintf("%s-%d", prefix, u) })
			logged, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "diff-apart", Run: prefix, EvalSet: "test-" + prefix}, r)
			require.NoError(t, err)
			e := logged.Evaluation
			es = append(es, &e)
		}
		_, err := compare.Diff(ctx, st, es[0], es[1], compare.DiffQuery{Metric: "score", AllowDifferentTargets: true})
		require.ErrorIs(t, err, compare.ErrNothingShared)
	}
}

// checkDiffDefinitions checks a drill-down read from every pair against
// its definitions, computed here from d.All: the quantiles are gonum's
// empirical ones, the total is the exact sum of the differences of the
// stored values rounded once, and the units listed are the first N of a
// stable sort by the candidate's gain (worst first, or best first).
func checkDiffDefinitions(t *testing.T, name string, d *compare.DiffResult, q compare.DiffQuery) {
	t.Helper()
	diffs := make([]float64, len(d.All))
	exact := new(big.Rat)
	for i, r := range d.All {
		diffs[i] = r.Difference
		exact.Add(exact, new(big.Rat).Sub(new(big.Rat).SetFloat64(r.Baseline), new(big.Rat).SetFloat64(r.Candidate)))
	}
	total, _ := exact.Float64()
	require.Equal(t, total, d.TotalDifference, "%s: the total", name)
	slices.Sort(diffs)
	want := []float64{diffs[0]}
	for _, p := range compare.DiffQuantiles {
		want = append(want, stat.Quantile(p, stat.Empirical, diffs, nil))
	}
	want = append(want, diffs[len(diffs)-1])
	require.Equal(t, want, d.Quantiles, "%s: the quantiles", name)

	order := slices.Clone(d.All)
	gain := func(r compare.DiffRow) float64 {
		g := r.Candidate - r.Baseline
		if d.Direction == compare.LowerIsBetter {
			g = -g
		}
		if q.Best {
			g = -g
		}
		return g
	}
	slices.SortStableFunc(order, func(a, b compare.DiffRow) int { return cmpFloat(gain(a), gain(b)) })
	require.Equal(t, order[:min(q.N, len(order))], d.Top, "%s: the units listed", name)
	better, worse := 0, 0
	for _, r := range d.All {
		switch {
		case r.Candidate == r.Baseline:
		case (r.Candidate > r.Baseline) != (d.Direction == compare.LowerIsBetter):
			better++
		default:
			worse++
		}
	}
	require.Equal(t, []int{better, worse, len(d.All) - better - worse}, []int{d.CandidateBetter, d.CandidateWorse, d.Same}, name)
	if d.Share != nil {
		require.False(t, math.IsNaN(*d.Share), name)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

package compare_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// fdrRuns logs k runs of one metric on the same 200 users: run i is
// better than run 0 by shift·i on average, with noise, so that some pairs
// are clearly different and others not.
func fdrRuns(t *testing.T, st *store.Store, k int, shift float64) []*store.Evaluation {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	ids := make([]string, 200)
	base := make([]float64, 200)
	for u := range ids {
		ids[u] = fmt.Sprintf("u%03d", u)
		base[u] = rng.Float64()
	}
	var out []*store.Evaluation
	for i := range k {
		vals := make([]float64, len(ids))
		for u := range vals {
			vals[u] = base[u] + shift*float64(i) + 0.2*rng.NormFloat64()
		}
		logged, err := st.LogEvaluation(context.Background(), store.NewEvaluation{Experiment: "fdr", Run: fmt.Sprintf("r%d", i), EvalSet: "test"},
			&memRows{metric: "ndcg", ids: ids, vals: vals})
		require.NoError(t, err)
		out = append(out, &logged.Evaluation)
	}
	return out
}

// TestFDRConcurrentComparisonsNeverShareWealth runs 12 comparisons at once
// under lord++ on one experiment. Each must get its own test number, and
// replaying the recorded p-values in test order through stats.OnlineFDR
// must give exactly the recorded levels, rejections and wealth: no two
// comparisons spent the same wealth or saw the same state.
func TestFDRConcurrentComparisonsNeverShareWealth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.NewDatabase(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	// Enough connections for every comparison to hold its transaction at
	// once.
	st, err := store.Open(ctx, url+sep+"pool_max_conns=16", store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	evals := fdrRuns(t, st, 13, 0.01)
	fdr := &compare.FDR{Method: stats.OnlineLORDPlusPlus, Alpha: 0.1}

	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range 12 {
		wg.Go(func() {
			_, errs[i] = compare.Evaluations(ctx, st, evals[0], evals[i+1], compare.Options{
				Method: compare.PairedT, Seed: uint64(i), Record: true, FDR: fdr, Sentence: report.Verdict})
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}

	hist, err := st.History(ctx, store.HistoryFilter{Experiment: "fdr", Limit: 100})
	require.NoError(t, err)
	require.Len(t, hist, 12)
	byTest := make([]store.HistoryEntry, 12)
	for _, h := range hist {
		require.NotNil(t, h.FDRTest)
		k := int(*h.FDRTest)
		require.True(t, k >= 1 && k <= 12, "test %d", k)
		require.Zero(t, byTest[k-1].ID, "test %d recorded twice", k)
		byTest[k-1] = h
	}
	ps := make([]float64, 12)
	for i, h := range byTest {
		ps[i] = *h.PValue
	}
	replay, err := stats.OnlineFDR(ps, stats.OnlineFDROptions{Method: stats.OnlineLORDPlusPlus, Alpha: 0.1})
	require.NoError(t, err)
	rejections := 0
	for i, h := range byTest {
		require.Equal(t, replay[i].Level, *h.FDRLevel, "test %d", i+1)
		require.Equal(t, replay[i].Rejected, *h.FDRRejected, "test %d", i+1)
		require.Equal(t, replay[i].WealthBefore, *h.FDRWealthBefore, "test %d", i+1)
		require.Equal(t, replay[i].Wealth, *h.FDRWealthAfter, "test %d", i+1)
		if h.Distinguishable {
			require.True(t, *h.FDRRejected, "test %d: distinguishable only where the procedure rejects", i+1)
			require.Contains(t, h.Verdict, "its online FDR level")
		}
		if replay[i].Rejected {
			rejections++
		}
	}
	require.Positive(t, rejections, "the larger shifts are found")
	require.Less(t, rejections, 12, "the smallest are not")

	l, err := compare.Ledger(ctx, st, "fdr")
	require.NoError(t, err)
	require.Equal(t, 12, l.Tests)
	require.Equal(t, rejections, l.Rejections)
	require.Equal(t, replay[11].Wealth, l.Wealth)
}

func TestFDRRefusesAnotherProcedureAndUnrecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	evals := fdrRuns(t, st, 3, 0.05)
	_, err = compare.Evaluations(ctx, st, evals[0], evals[1], compare.Options{Resamples: 200, Record: true, FDR: &compare.FDR{}})
	require.NoError(t, err)
	_, err = compare.Evaluations(ctx, st, evals[0], evals[2], compare.Options{Resamples: 200, Record: true, FDR: &compare.FDR{Method: stats.OnlineLORDPlusPlus}})
	require.ErrorIs(t, err, compare.ErrInvalid)
	require.ErrorContains(t, err, `history is tested under lond-dep at FDR 0.05`)
	_, err = compare.Evaluations(ctx, st, evals[0], evals[2], compare.Options{Resamples: 200, FDR: &compare.FDR{}})
	require.ErrorIs(t, err, compare.ErrInvalid)
	_, err = compare.Evaluations(ctx, st, evals[0], evals[2], compare.Options{Resamples: 200, Record: true, FDR: &compare.FDR{Method: "bh"}})
	require.ErrorIs(t, err, compare.ErrInvalid)
	l, err := compare.Ledger(ctx, st, "fdr")
	require.NoError(t, err)
	require.Equal(t, 1, l.Tests, "refused comparisons spend nothing")
}

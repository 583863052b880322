package evaluate_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestParseMetricSpecs reads whole-set specs beside the per-user ones:
// coverage is written like the others, in any case, with the cutoffs of a
// name merged.
func TestParseMetricSpecs(t *testing.T) {
	t.Parallel()
	keys := func(ms []evaluate.Metric) []string {
		var k []string
		for _, m := range ms {
			k = append(k, m.Keys()...)
		}
		return k
	}
	for _, tc := range []struct {
		specs    []string
		perUser  []string
		wholeSet []evaluate.WholeSetSpec
	}{
		{specs: []string{"coverage@10"}, wholeSet: []evaluate.WholeSetSpec{{Name: "coverage", Cutoffs: []int{10}}}},
		{specs: []string{"coverage@20,10"}, wholeSet: []evaluate.WholeSetSpec{{Name: "coverage", Cutoffs: []int{10, 20}}}},
		{specs: []string{" Coverage @ 5 ", "COVERAGE@5,1"}, wholeSet: []evaluate.WholeSetSpec{{Name: "coverage", Cutoffs: []int{1, 5}}}},
		{specs: []string{"ndcg@10,coverage@10,20,recall@5"}, perUser: []string{"ndcg@10", "recall@5"},
			wholeSet: []evaluate.WholeSetSpec{{Name: "coverage", Cutoffs: []int{10, 20}}}},
		{specs: []string{"ndcg@10,20"}, perUser: []string{"ndcg@10", "ndcg@20"}},
		{specs: nil},
	} {
		metrics, wholeSet, err := evaluate.ParseMetricSpecs(tc.specs)
		require.NoError(t, err, tc.specs)
		require.Equal(t, tc.perUser, keys(metrics), tc.specs)
		require.Equal(t, tc.wholeSet, wholeSet, tc.specs)
		if tc.perUser == nil {
			require.Nil(t, metrics, "only whole-set specs leave the per-user metrics to the defaults")
		}
	}
	s := evaluate.WholeSetSpec{Name: "coverage", Cutoffs: []int{5, 20}}
	require.Equal(t, []string{"coverage@5", "coverage@20"}, s.Keys())
	require.Equal(t, 20, s.RequiredK())
	var made []string
	for _, m := range s.Metrics(100) {
		made = append(made, m.Keys()...)
	}
	require.Equal(t, s.Keys(), made)

	for spec, want := range map[string]string{
		"covrage@10": `bad metric "covrage@10": unknown name "covrage"; the metrics are ndcg, recall, calibrated_recall, precision, hit_rate, mrr, map and coverage`,
		"coverage":   `bad metric "coverage": coverage has no cutoff; write it as coverage@10, or coverage@10,20,50 for several`,
		"coverage@0": `bad metric "coverage@0": cutoff "0" is not a whole number from 1 to 1000000`,
	} {
		_, _, err := evaluate.ParseMetricSpecs([]string{spec})
		require.ErrorIs(t, err, evaluate.ErrBadMetric)
		require.EqualError(t, err, want)
	}

	// ParseMetrics gives per-user metrics only, and says where coverage is
	// read rather than drop it.
	_, err := evaluate.ParseMetrics([]string{"ndcg@10,coverage@10"})
	require.ErrorIs(t, err, evaluate.ErrBadMetric)
	require.EqualError(t, err, `bad metric "coverage@10": coverage is a metric of the whole set of rows, not of each row; ParseMetricSpecs reads it`)
}

// The NumPy fixtures (gen_numpy.py) rank the top 4 of 10 items; the targets
// matrix has shape (6, 10), so the catalogue has 10 items. The scored rows
// (those with targets) are 0, 2, 3 and 4, whose predictions are
//
//	row 0: 3 1 4 0
//	row 2: 0 6 8 2
//	row 3: 9 8 7 6
//	row 4: 5 4 3 2
//
// (rows 1 and 5 have no targets and do not count). So, by hand:
//
//	top 1: {3, 0, 9, 5}                        4 items: coverage@1 = 4/10
//	top 2: {3, 1, 0, 6, 9, 8, 5, 4}            8 items: coverage@2 = 8/10
//	top 4: every item 0 to 9                  10 items: coverage@4 = 10/10
//
// and coverage@10 is coverage@4, as no row has more than 4 predictions.

// TestRequestCoverage evaluates the NumPy fixtures with coverage specs as
// the command line and the API give them: the catalogue's size comes from
// the targets' columns unless catalogue_size says otherwise, and the
// per-user metrics are still the defaults when only coverage is named.
func TestRequestCoverage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts, err := evaluate.Request{Metrics: []string{"coverage@1,2", "coverage@10"}, NoLog: true}.Options(false, "")
	require.NoError(t, err)
	require.Nil(t, opts.Metrics)
	require.Empty(t, opts.WholeSet, "made by Run, with the input's catalogue size")
	require.Equal(t, []evaluate.WholeSetSpec{{Name: "coverage", Cutoffs: []int{1, 2, 10}}}, opts.WholeSetSpecs)
	require.Zero(t, opts.RequiredK(), "the defaults read every rank")

	src := openFixtures(t, nil)
	require.Equal(t, 10, src.CatalogueSize(), "the targets' shape is (6, 10)")
	res, err := evaluate.Run(ctx, src, opts)
	require.NoError(t, err)
	require.Equal(t, []string{"calibrated_recall@4", "ndcg@4"}, res.Keys, "the defaults at the full width")
	require.Equal(t, []string{"coverage@1", "coverage@2", "coverage@10"}, res.WholeSetKeys)
	require.Equal(t, 0.4, res.Means["coverage@1"])
	require.Equal(t, 0.8, res.Means["coverage@2"])
	require.Equal(t, 1.0, res.Means["coverage@10"])
	require.Contains(t, res.Means, "ndcg@4")
	require.Contains(t, res.Means, "calibrated_recall@4")
	require.Equal(t, 10, res.RequiredK)

	// catalogue_size overrides the columns: 10 items of 20 is 0.5.
	opts, err = evaluate.Request{Metrics: []string{"ndcg@4", "coverage@10"}, CatalogueSize: 20, NoLog: true}.Options(false, "")
	require.NoError(t, err)
	require.Len(t, opts.WholeSet, 1)
	require.Empty(t, opts.WholeSetSpecs)
	require.Equal(t, 10, opts.RequiredK())
	res, err = evaluate.Run(ctx, openFixtures(t, nil), opts)
	require.NoError(t, err)
	require.Equal(t, []string{"ndcg@4"}, res.Keys)
	require.Equal(t, 0.5, res.Means["coverage@10"])

	_, err = evaluate.Request{Metrics: []string{"coverage@10"}, CatalogueSize: -1, NoLog: true}.Options(false, "")
	require.ErrorIs(t, err, request.ErrInvalid)
	require.EqualError(t, err, "catalogue_size must be a positive number of items, not -1")
}

// TestRunCoverageNeedsCatalogueSize evaluates the TREC fixture, whose
// items are document IDs with no catalogue to count them against: coverage
// is refused without catalogue_size, and computed with it. The run ranks by
// score, ties by document ID descending (see rankings_trec_test.go); the
// queries with relevant documents are q1 (d1, then d3 and d2 tied at 0.8),
// q2 (d9 and d10 tied at 0.5, then d8), q3 (not in the run) and q6 (d21,
// d20, …). By hand, over a catalogue of 12:
//
//	top 1: {d1, d9, d21}                   coverage@1 = 3/12
//	top 2: {d1, d3, d9, d10, d21, d20}     coverage@2 = 6/12
func TestRunCoverageNeedsCatalogueSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := func() evaluate.Rankings {
		dir := filepath.Join("testdata", "rankings")
		src, err := evaluate.OpenTRECRankings(filepath.Join(dir, "trec.run"), filepath.Join(dir, "trec.qrels"), evaluate.RankingOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { src.Close() })
		return src
	}
	opts, err := evaluate.Request{Metrics: []string{"coverage@1,2"}, NoLog: true}.Options(false, "")
	require.NoError(t, err)
	_, err = evaluate.Run(ctx, open(), opts)
	require.ErrorIs(t, err, request.ErrInvalid)
	var re *request.Error
	require.True(t, errors.As(err, &re))
	require.Equal(t, "coverage@1 needs the catalogue's size, the number of items a model may recommend: give --catalogue-size (NumPy input gives it by the targets' columns)",
		re.Render(func(name string) string { return "--catalogue-size" }))

	opts, err = evaluate.Request{Metrics: []string{"coverage@1,2"}, CatalogueSize: 12, NoLog: true}.Options(false, "")
	require.NoError(t, err)
	res, err := evaluate.Run(ctx, open(), opts)
	require.NoError(t, err)
	require.Equal(t, 3.0/12, res.Means["coverage@1"])
	require.Equal(t, 6.0/12, res.Means["coverage@2"])
}

// TestRunCoverageDeeperThanRead refuses a whole-set metric that looks at
// more ranks than the rankings were opened to read, when they hold more:
// its value would be of the ranks read only.
func TestRunCoverageDeeperThanRead(t *testing.T) {
	t.Parallel()
	dir := copyFixtures(t, "items.npy", "targets.npz")
	src, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", filepath.Join(dir, "targets.npz"), "", evaluate.RankingOptions{Width: 2})
	require.NoError(t, err)
	defer src.Close()
	_, err = evaluate.Run(context.Background(), src, evaluate.RunOptions{Metrics: []evaluate.Metric{evaluate.NDCG(2)},
		WholeSetSpecs: []evaluate.WholeSetSpec{{Name: "coverage", Cutoffs: []int{4}}}})
	require.ErrorIs(t, err, evaluate.ErrBadMetric)
	require.ErrorContains(t, err, `"coverage@4": it looks at the top 4 predictions of each row, but they are read to rank 2 only, the largest cutoff of the per-user metrics: name a per-user metric at 4 too`)
}

// TestRunLogsCoverageSpec logs an evaluation of the NumPy fixtures with
// coverage@10 named by spec: the store keeps it as an aggregate, 10 items
// of 10 (see above), with no per-unit column.
func TestRunLogsCoverageSpec(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	defer st.Close()
	_, wholeSet, err := evaluate.ParseMetricSpecs([]string{"coverage@10"})
	require.NoError(t, err)
	res, err := evaluate.Run(ctx, openFixtures(t, nil), evaluate.RunOptions{
		WholeSetSpecs: wholeSet,
		Store:         st,
		Log:           store.NewEvaluation{Experiment: "fixtures", Run: "model", EvalSet: "test"},
	})
	require.NoError(t, err)
	require.NotNil(t, res.EvaluationID)
	got, err := st.GetEvaluation(ctx, *res.EvaluationID)
	require.NoError(t, err)
	require.Equal(t, []string{"calibrated_recall@4", "ndcg@4"}, got.Metrics)
	require.Equal(t, []string{"coverage@10"}, got.WholeSet())
	require.Equal(t, 1.0, got.Aggregates["coverage@10"])
	require.Equal(t, []int{4, 10}, got.Protocol.Cutoffs)
	require.Equal(t, 10, got.Protocol.RequiredK)
}

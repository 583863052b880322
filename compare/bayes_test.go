package compare_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// foldScores are the 5-fold scores of the k-fold fixture: "good" is better
// than "poor" by 0.04 to 0.06 in every fold, for the metric's direction,
// and "same" is within 0.002 of "poor".
var foldScores = struct{ poor, gap, noise []float64 }{
	poor:  []float64{0.80, 0.82, 0.79, 0.81, 0.83},
	gap:   []float64{0.05, 0.06, 0.04, 0.055, 0.045},
	noise: []float64{0.001, -0.002, 0.0015, -0.001, 0.0005},
}

// kfoldFixture is a database with runs good, poor and same logged as
// evaluations of protocol p, without the fold sizes: repeats copies of the
// five folds, each copy shifted by 0.01.
type kfoldFixture struct {
	url              string
	st               *store.Store
	good, poor, same *store.Evaluation
	// values are the stored (single precision) fold scores of each run.
	values map[string][]float64
}

func setupKFold(t *testing.T, d direction, p store.Protocol, repeats int) kfoldFixture {
	t.Helper()
	ctx := context.Background()
	url := storetest.NewDatabase(t)
	st, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	f := kfoldFixture{url: url, st: st, values: map[string][]float64{}}
	log := func(run string, shift func(i int) float64) *store.Evaluation {
		var ids []string
		var vals []float64
		for r := range repeats {
			for i, v := range foldScores.poor {
				s := shift(i)
				if d.lower {
					s = -s // a lower loss is better
				}
				ids = append(ids, fmt.Sprintf("r%d-fold-%d", r, i))
				vals = append(vals, v+s+0.01*float64(r))
				f.values[run] = append(f.values[run], float64(float32(v+s+0.01*float64(r))))
			}
		}
		ev := store.NewEvaluation{Experiment: "cv", Run: run, EvalSet: "folds", Protocol: p}
		if d.lower {
			ev.LowerIsBetter = []string{d.metric}
		}
		l, err := st.LogEvaluation(ctx, ev, &memRows{metric: d.metric, ids: ids, vals: vals})
		require.NoError(t, err)
		return &l.Evaluation
	}
	f.poor = log("poor", func(int) float64 { return 0 })
	f.good = log("good", func(i int) float64 { return foldScores.gap[i] })
	f.same = log("same", func(i int) float64 { return foldScores.noise[i] })
	return f
}

// TestKFoldWithoutSizesAssumesRho compares k-fold evaluations logged
// without n_train and n_test: the corrected t and the Bayesian t assume
// ρ = 1/k, which must give the numbers of folds of sizes k − 1 and 1, and
// say so. The Bayesian decision names the better run for the metric's
// direction, in its field and in its words, and is recorded.
func TestKFoldWithoutSizesAssumesRho(t *testing.T) {
	t.Parallel()
	for _, d := range directions {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			f := setupKFold(t, d, store.Protocol{Name: "kfold"}, 1)
			rope := 0.01
			tests := []struct {
				name       string
				base, cand *store.Evaluation
				want       compare.BayesDecision
				wantWords  string
			}{
				{name: "baseline better", base: f.good, cand: f.poor, want: compare.BayesBaselineBetter,
					wantWords: "With a ROPE of 0.01, the posterior decides: good better (P = "},
				{name: "candidate better", base: f.poor, cand: f.good, want: compare.BayesCandidateBetter,
					wantWords: "With a ROPE of 0.01, the posterior decides: good better (P = "},
				{name: "equivalent", base: f.poor, cand: f.same, want: compare.BayesEquivalent,
					wantWords: "With a ROPE of 0.01, the posterior decides: practically equivalent (P = "},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					c, err := compare.Evaluations(context.Background(), f.st, tt.base, tt.cand,
						compare.Options{Rope: &rope, DecideAt: 0.9, Record: true, Sentence: report.Verdict})
					require.NoError(t, err)
					r := c.Metrics[0]
					require.Equal(t, "corrected-t", r.Method)
					require.True(t, r.RhoAssumed)
					require.Equal(t, 5, r.K)
					require.InDelta(t, 0.2, r.Rho, 1e-15)
					require.Contains(t, r.Verdict, "ρ = 1/k = 0.2 assumed: the fold sizes were not recorded")

					// The same numbers as folds of sizes 4 and 1 (n_test/n_train = 1/(k − 1)).
					left, right := f.values[tt.base.Run], f.values[tt.cand.Run]
					ct, err := stats.CorrectedResampledT(left, right, stats.CorrectedTOptions{NTrain: 4, NTest: 1})
					require.NoError(t, err)
					require.InDelta(t, ct.T, r.Statistic.Value, 1e-12)
					require.InDelta(t, ct.PValue, r.PValue, 1e-12)
					b, err := stats.BayesCorrelatedT(left, right, stats.BayesOptions{NTrain: 4, NTest: 1, Rope: rope})
					require.NoError(t, err)
					higher, lower := b.PLeftBetter, b.PRightBetter
					if d.lower {
						higher, lower = lower, higher
					}
					require.InDelta(t, higher, r.Bayes.PBaselineBetter, 1e-12)
					require.InDelta(t, b.PEquivalent, r.Bayes.PEquivalent, 1e-12)
					require.InDelta(t, lower, r.Bayes.PCandidateBetter, 1e-12)

					require.Equal(t, tt.want, r.Bayes.Decision)
					require.Equal(t, 0.9, r.Bayes.DecideAt)
					require.Greater(t, r.Bayes.P(), 0.9)
					require.Contains(t, r.Verdict, tt.wantWords, r.Verdict)
					require.Equal(t, 0.9, storetest.Scalar[float64](t, f.url,
						`SELECT (parameters->>'decide_at')::float8 FROM comparisons WHERE id = $1`, *r.ComparisonID))
					require.InDelta(t, 0.2, storetest.Scalar[float64](t, f.url,
						`SELECT (parameters->>'rho')::float8 FROM comparisons WHERE id = $1`, *r.ComparisonID), 1e-15)
				})
			}
		})
	}
}

// TestKFoldRhoFromProtocol checks where k comes from: the folds per
// repetition as logged, or for repeated k-fold the units over the
// repetitions; without either a repeated k-fold cannot assume ρ, and the
// fold sizes, when logged, are used as they are.
func TestKFoldRhoFromProtocol(t *testing.T) {
	t.Parallel()
	d := directions[0]
	tests := []struct {
		name     string
		protocol store.Protocol
		repeats  int
		method   compare.Method
		wantK    int
		wantRho  float64
		assumed  bool
		wantErr  error
		wantText string
	}{
		{name: "folds logged", protocol: store.Protocol{Name: "kfold", Folds: 5}, repeats: 1, wantK: 5, wantRho: 0.2, assumed: true},
		{name: "repeated, folds logged", protocol: store.Protocol{Name: "repeated_kfold", Folds: 5, Repeats: 2}, repeats: 2, wantK: 5, wantRho: 0.2, assumed: true,
			wantText: "Corrected resampled t (Nadeau & Bengio, 10 folds): t = "},
		{name: "repeated, repeats logged", protocol: store.Protocol{Name: "repeated_kfold", Repeats: 2}, repeats: 2, wantK: 5, wantRho: 0.2, assumed: true,
			wantText: "ρ = 1/k = 0.2 (k = 5 folds per repetition) assumed: the fold sizes were not recorded"},
		{name: "repeated, neither logged", protocol: store.Protocol{Name: "repeated_kfold"}, repeats: 2, wantErr: compare.ErrNotApplicable},
		{name: "sizes logged", protocol: store.Protocol{Name: "kfold", NTrain: 900, NTest: 100}, repeats: 1, wantK: 5, wantRho: 0.1,
			wantText: "Corrected resampled t (Nadeau & Bengio, 5 folds, n_train 900, n_test 100)"},
		{name: "holdout", protocol: store.Protocol{}, repeats: 1, method: compare.CorrectedT, wantErr: compare.ErrNotApplicable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := setupKFold(t, d, tt.protocol, tt.repeats)
			rope := 0.01
			c, err := compare.Evaluations(context.Background(), f.st, f.good, f.poor,
				compare.Options{Method: tt.method, Rope: &rope, Sentence: report.Verdict})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			r := c.Metrics[0]
			require.Equal(t, tt.wantK, r.K)
			require.InDelta(t, tt.wantRho, r.Rho, 1e-15)
			require.Equal(t, tt.assumed, r.RhoAssumed)
			require.Equal(t, compare.BayesBaselineBetter, r.Bayes.Decision)
			require.Equal(t, stats.DefaultDecideAt, r.Bayes.DecideAt)
			require.Contains(t, r.Verdict, tt.wantText)
			if !tt.assumed {
				require.NotContains(t, r.Verdict, "assumed")
			}
		})
	}
}

// TestFiveByTwoKeepsItsTest checks that 5x2 evaluations logged without
// fold sizes are not taken for k-fold ones: the default stays the 5x2cv t,
// and the corrected t still needs the sizes.
func TestFiveByTwoKeepsItsTest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	var evals []*store.Evaluation
	for j, run := range []string{"a", "b"} {
		var ids []string
		var vals []float64
		for i := range 10 {
			ids = append(ids, fmt.Sprintf("r%d-f%d", i/2, i%2))
			vals = append(vals, 0.7+0.01*float64(i%3)+0.02*float64(j)+0.003*float64(i*j%4))
		}
		l, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "cv", Run: run, EvalSet: "folds", Protocol: store.Protocol{Name: "5x2"}},
			&memRows{metric: "accuracy", ids: ids, vals: vals})
		require.NoError(t, err)
		evals = append(evals, &l.Evaluation)
	}
	rope := 0.01
	c, err := compare.Evaluations(ctx, st, evals[0], evals[1], compare.Options{Rope: &rope})
	require.NoError(t, err)
	require.Equal(t, "5x2cv-t+bootstrap-interval", c.Metrics[0].Method)
	require.False(t, c.Metrics[0].RhoAssumed)
	require.Nil(t, c.Metrics[0].Bayes)
	_, err = compare.Evaluations(ctx, st, evals[0], evals[1], compare.Options{Method: compare.CorrectedT})
	require.ErrorIs(t, err, compare.ErrNotApplicable)
}

// TestDecideAtOutOfRange checks that a threshold outside [0.5, 1) is
// refused before any pairing.
func TestDecideAtOutOfRange(t *testing.T) {
	t.Parallel()
	left := map[string]float64{"f1": 0.8, "f2": 0.82, "f3": 0.79}
	for _, at := range []float64{0.3, 1, 1.5} {
		rope := 0.01
		_, err := compare.Scores(context.Background(), "accuracy", compare.HigherIsBetter, compare.Named{Scores: left}, compare.Named{Scores: left},
			compare.Options{Rope: &rope, DecideAt: at})
		require.ErrorIs(t, err, compare.ErrInvalid, "decide_at %g", at)
	}
}

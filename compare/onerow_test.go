package compare

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// unitRows is an in-memory store.Rows of one row a unit.
type unitRows struct {
	metrics []string
	vals    [][]float64
	i       int
}

func (r *unitRows) Metrics() []string      { return r.metrics }
func (r *unitRows) HasDraw() bool          { return false }
func (r *unitRows) Next() bool             { r.i++; return r.i <= len(r.vals) }
func (r *unitRows) SampleID() string       { return fmt.Sprintf("u%05d", r.i-1) }
func (r *unitRows) Draw() int64            { return 1 }
func (r *unitRows) Values() []float64      { return r.vals[r.i-1] }
func (r *unitRows) Where() string          { return fmt.Sprintf("row %d", r.i) }
func (r *unitRows) Err() error             { return nil }
func (r *unitRows) Progress() (a, b int64) { return 0, 0 }

// TestOneRowEqualsPairs compares metrics of units of one row from their
// summary and differences (compareOneRow) and from each metric's pairs with
// its sample IDs, each test resampling on its own (the path a distributed
// database takes when it cannot reduce a metric): every number and word is
// the same, bit for bit, for the bootstrap with and without margins, the
// paired t-test, both directions, ties, constant metrics, values equal
// within storage precision, one unit (an error for the t-test, the same),
// and units missing on either side.
func TestOneRowEqualsPairs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	metrics := []string{"ndcg@10", "hit@10", "logloss", "constant", "same", "nearly", "better"}
	log := func(run string, n, skip int, seed uint64) *store.Evaluation {
		rng := rand.New(rand.NewPCG(seed, 1))
		rows := &unitRows{metrics: metrics}
		for u := range n {
			if u == skip {
				continue // a unit of the other side only
			}
			ndcg := float64(rng.IntN(33)) / 32
			if rng.IntN(2) == 0 {
				ndcg = rng.Float64()
			}
			nearly := 0.3
			if seed%2 == 1 {
				nearly = float64(math.Nextafter32(0.3, 1)) // equal within storage precision
			}
			rows.vals = append(rows.vals, []float64{ndcg, float64(rng.IntN(2)), 0.2 + rng.ExpFloat64(), 0.5,
				float64(u%10) / 10, nearly, float64(seed%2) + rng.Float64()})
		}
		ev := store.NewEvaluation{Experiment: "one-row", Run: run, EvalSet: fmt.Sprintf("set-%d", n), LowerIsBetter: []string{"logloss"}}
		l, err := st.LogEvaluation(ctx, ev, rows)
		require.NoError(t, err)
		return &l.Evaluation
	}
	margin, rope := 0.01, 0.02
	// One unit on both sides; else n − 2 units paired, the baseline's
	// last and the candidate's first unpaired.
	for _, n := range []int{1, 3, 5000} {
		base, cand := log("base-1", 1, -1, 2), log("cand-1", 1, -1, 3)
		if n > 1 {
			base, cand = log(fmt.Sprintf("base-%d", n), n, n-1, 2), log(fmt.Sprintf("cand-%d", n), n, 0, 3)
		}
		for _, opts := range []Options{
			{Method: Bootstrap, Resamples: 400, Seed: 7},
			{Method: Bootstrap, Resamples: 400, Seed: 8, Margin: &margin},
			{Method: Bootstrap, Resamples: 400, Seed: 9, Rope: &rope},
			{Method: PairedT, Margin: &margin},
		} {
			t.Run(fmt.Sprintf("%d/%s/%d", n, opts.Method, opts.Seed), func(t *testing.T) {
				require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
					fromDiffs := &Comparison{Baseline: base.Run, Candidate: cand.Run}
					fromDiffsErr := pairOneServer(ctx, tx, fromDiffs, base, cand, metrics, inputs(base, cand, opts, nil), opts.Method, opts)
					for k, m := range metrics {
						in := inputs(base, cand, opts, nil)(m)
						var err error
						in.pairs, err = tx.Pair(ctx, base.ID, cand.ID, m, false)
						require.NoError(t, err)
						alone, err := compareMetric(ctx, &Comparison{Baseline: base.Run, Candidate: cand.Run}, in, opts.Method, opts)
						if err != nil {
							// The first metric that fails fails the comparison.
							require.EqualError(t, fromDiffsErr, m+": "+err.Error())
							return nil
						}
						require.NoError(t, fromDiffsErr)
						want, err := json.Marshal(alone)
						require.NoError(t, err)
						got, err := json.Marshal(fromDiffs.Metrics[k])
						require.NoError(t, err)
						require.JSONEq(t, string(want), string(got), m)
						require.Equal(t, alone, fromDiffs.Metrics[k], m)
					}
					return nil
				}))
			})
		}
	}
}

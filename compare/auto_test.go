package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// drawRows are n units of two rows each (draws 0 and 1) of one metric.
type drawRows struct {
	n, i int
	rng  *rand.Rand
	v    [1]float64
}

func (r *drawRows) Metrics() []string      { return []string{"ndcg@10"} }
func (r *drawRows) HasDraw() bool          { return true }
func (r *drawRows) Next() bool             { r.i++; r.v[0] = float64(r.rng.IntN(33)) / 32; return r.i <= 2*r.n }
func (r *drawRows) SampleID() string       { return fmt.Sprintf("user-%05d", (r.i-1)/2) }
func (r *drawRows) Draw() int64            { return int64((r.i - 1) % 2) }
func (r *drawRows) Values() []float64      { return r.v[:] }
func (r *drawRows) Where() string          { return fmt.Sprintf("row %d", r.i) }
func (r *drawRows) Err() error             { return nil }
func (r *drawRows) Progress() (a, b int64) { return 0, 0 }

// TestAutoChoosesTAtScale checks the rule that picks the method of a
// comparison that names none, on one server and on a 3-node Citus
// cluster: from compare.AutoTMinUnits units of one row each the paired t
// of the exact sums, with the choice and its reason in the JSON and the
// sentence, and the same numbers and words on both; the bootstrap one
// unit below, with draws, and whenever the options ask for the
// bootstrap's method, resampling or replicates.
func TestAutoChoosesTAtScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, ps := twoDeployments(t)

	stores := map[string]*store.Store{"citus": cs, "one server": ps}
	// evals[where][name]: evaluations of n units, runs "a" and "b".
	evals := map[string]map[string][2]*store.Evaluation{}
	for where, st := range stores {
		evals[where] = map[string][2]*store.Evaluation{}
		for _, c := range []struct {
			name  string
			n     int
			draws bool
		}{{"at", compare.AutoTMinUnits, false}, {"below", compare.AutoTMinUnits - 1, false}, {"draws", compare.AutoTMinUnits, true}} {
			var pair [2]*store.Evaluation
			for i, run := range []string{"a", "b"} {
				var rows store.Rows
				if c.draws {
					rows = &drawRows{n: c.n, rng: rand.New(rand.NewPCG(uint64(i), 7))}
				} else {
					w := scaleRun(uint64(i+1), 0.05*float64(i))
					w.ids, w.vals = nil, nil
					for u := range c.n {
						w.ids = append(w.ids, fmt.Sprintf("user-%05d", u))
						w.vals = append(w.vals, []float64{float64((u*13+i*u/7)%33) / 32, float64(float32(20 + float64(u%17) - 3*float64(i) + float64((u*(i+1))%5)))})
					}
					rows = w
				}
				ev := store.NewEvaluation{Experiment: "auto-" + c.name, Run: run, EvalSet: "test"}
				if !c.draws {
					ev.LowerIsBetter = []string{"latency_ms"}
				}
				l, err := st.LogEvaluation(ctx, ev, rows)
				require.NoError(t, err)
				pair[i] = &l.Evaluation
			}
			evals[where][c.name] = pair
		}
	}

	run := func(where, name string, opts compare.Options) *compare.Comparison {
		t.Helper()
		opts.Sentence, opts.Record = report.Verdict, true
		p := evals[where][name]
		c, err := compare.Evaluations(ctx, stores[where], p[0], p[1], opts)
		require.NoError(t, err, "%s, %s", where, name)
		return c
	}
	results := func(c *compare.Comparison) string {
		var out []compare.MetricResult
		for _, r := range c.Metrics {
			m := *r
			m.ComparisonID = nil
			out = append(out, m)
		}
		b, err := json.Marshal(out)
		require.NoError(t, err)
		return string(b)
	}

	// At the threshold: the t, on both deployments alike.
	onCitus, onPlain := run("citus", "at", compare.Options{}), run("one server", "at", compare.Options{})
	require.JSONEq(t, results(onPlain), results(onCitus), "the same numbers and words on both")
	require.Len(t, onPlain.Metrics, 2)
	for _, r := range onPlain.Metrics {
		require.Equal(t, "paired-t", r.Method, r.Metric)
		require.Empty(t, r.Resampling)
		require.Equal(t, &compare.AutoChoice{Method: compare.PairedT, Units: compare.AutoTMinUnits, MinUnits: compare.AutoTMinUnits}, r.Auto)
		require.Contains(t, r.Verdict, "Paired t: t = ")
		require.Contains(t, r.Verdict, "The paired t was chosen for 10,000 units of one row each: from 10,000 on, it and the bootstrap decide alike")
		j, err := json.Marshal(r)
		require.NoError(t, err)
		require.Contains(t, string(j), `"auto":{"method":"t","units":10000,"min_units":10000}`)
	}
	// The recorded history names the method that ran.
	hist, err := compare.History(ctx, ps, store.HistoryFilter{Experiment: "auto-at", Limit: 10})
	require.NoError(t, err)
	require.NotEmpty(t, hist)
	for _, h := range hist {
		require.Equal(t, "paired-t", h.Method)
	}

	// Whatever asks for the bootstrap gets it, with no choice reported.
	for _, opts := range []compare.Options{
		{Method: compare.Bootstrap},
		{Resampling: compare.Multinomial},
		{Resamples: 500},
	} {
		for _, r := range run("one server", "at", opts).Metrics {
			require.Equal(t, "bootstrap+randomization", r.Method, "%+v", opts)
			require.Nil(t, r.Auto)
			require.NotContains(t, r.Verdict, "was chosen for")
		}
	}
	for _, r := range run("citus", "at", compare.Options{Resampling: compare.Poisson, Resamples: 200}).Metrics {
		require.Equal(t, "poisson-bootstrap+randomization", r.Method)
		require.Nil(t, r.Auto)
	}

	// One unit below, and with draws: the bootstrap, as before.
	for where := range stores {
		for _, name := range []string{"below", "draws"} {
			for _, r := range run(where, name, compare.Options{}).Metrics {
				require.True(t, strings.Contains(r.Method, "bootstrap"), "%s, %s: %s", where, name, r.Method)
				require.Nil(t, r.Auto, "%s, %s", where, name)
			}
		}
	}
}

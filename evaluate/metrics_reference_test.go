package evaluate_test

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/evaluate"
)

// referenceTol bounds the difference from the NumPy reference, whose sums
// run in another order and whose log2 may round differently in the last
// place.
const referenceTol = 1e-9

// metricsReference is testdata/reference/metrics.json.gz, written by
// gen_reference.py: random rankings with the per-row values and means of
// every metric as NumPy computes them from the definitions.
type metricsReference struct {
	Width       int                `json:"width"`
	Cutoffs     []int              `json:"cutoffs"`
	Keys        []string           `json:"keys"`
	NRows       int64              `json:"n_rows"`
	NScoredRows int64              `json:"n_scored_rows"`
	NUnits      int64              `json:"n_units"`
	Means       map[string]float64 `json:"means"`
	Rows        []struct {
		SampleID    string    `json:"sample_id"`
		Predictions []int     `json:"predictions"`
		Targets     []int     `json:"targets"`
		Values      []float64 `json:"values"`
	} `json:"rows"`
}

func readMetricsReference(t *testing.T) *metricsReference {
	t.Helper()
	f, err := os.Open("testdata/reference/metrics.json.gz")
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	var ref metricsReference
	require.NoError(t, json.NewDecoder(z).Decode(&ref))
	require.Len(t, ref.Rows, int(ref.NRows))
	return &ref
}

// batches cuts the reference rows into batches of the given sizes (the last
// one takes the rest), matching predictions against the distinct targets
// the way the input readers do.
func (ref *metricsReference) batches(sizes ...int) []*evaluate.Batch {
	var out []*evaluate.Batch
	for first := 0; first < len(ref.Rows); {
		n := len(ref.Rows) - first
		if len(out) < len(sizes) {
			n = min(n, sizes[len(out)])
		}
		b := &evaluate.Batch{First: int64(first), Width: ref.Width, Hits: make([]bool, n*ref.Width)}
		for r, row := range ref.Rows[first : first+n] {
			targets := make(map[int]bool)
			for _, it := range row.Targets {
				targets[it] = true
			}
			for i, it := range row.Predictions {
				b.Hits[r*ref.Width+i] = targets[it]
			}
			b.SampleIDs = append(b.SampleIDs, row.SampleID)
			b.Relevant = append(b.Relevant, int32(len(targets)))
		}
		out = append(out, b)
		first += n
	}
	return out
}

func allMetrics(ks ...int) []evaluate.Metric {
	return []evaluate.Metric{
		evaluate.NDCG(ks...), evaluate.Recall(ks...), evaluate.CalibratedRecall(ks...),
		evaluate.Precision(ks...), evaluate.HitRate(ks...), evaluate.MRR(ks...), evaluate.MAP(ks...),
	}
}

// TestReference checks every per-row value and mean against the NumPy
// reference, with the rows cut into batches of uneven sizes, summarised on
// several goroutines and merged.
func TestReference(t *testing.T) {
	t.Parallel()
	ref := readMetricsReference(t)
	e, err := evaluate.NewEvaluator(allMetrics(ref.Cutoffs...))
	require.NoError(t, err)
	require.Equal(t, ref.Keys, e.Keys())
	require.Equal(t, 30, e.RequiredK())
	nk := len(ref.Keys)

	batches := ref.batches(1, 7, 500, 333, 64)
	summaries := make([]*evaluate.Summary, len(batches))
	values := make([][]float64, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() {
			summaries[i] = e.NewSummary()
			values[i], errs[i] = e.Score(b, nil)
			if errs[i] == nil {
				summaries[i].Add(b, values[i])
			}
		})
	}
	wg.Wait()

	for i, b := range batches {
		require.NoError(t, errs[i])
		require.Len(t, values[i], b.Len()*nk)
		for r := range b.Len() {
			row := ref.Rows[b.First+int64(r)]
			for j, key := range ref.Keys {
				got, want := values[i][r*nk+j], row.Values[j]
				require.Truef(t, scalar.EqualWithinAbsOrRel(got, want, referenceTol, referenceTol),
					"row %d (sample %q), %s: got %v, NumPy %v", b.First+int64(r), row.SampleID, key, got, want)
			}
		}
	}

	total := e.NewSummary()
	for _, s := range summaries {
		total.Merge(s)
	}
	require.Equal(t, ref.NRows, total.Rows())
	require.Equal(t, ref.NScoredRows, total.ScoredRows())
	require.Equal(t, ref.NUnits, total.Units())
	means := total.Means()
	require.Len(t, means, nk)
	for key, want := range ref.Means {
		require.Truef(t, scalar.EqualWithinAbsOrRel(means[key], want, referenceTol, referenceTol),
			"mean %s: got %v, NumPy %v", key, means[key], want)
	}
}

// TestReferenceSingleMetrics checks that each metric computed on its own
// agrees with the evaluator's shared pass over all of them.
func TestReferenceSingleMetrics(t *testing.T) {
	t.Parallel()
	ref := readMetricsReference(t)
	b := ref.batches()[0]
	e, err := evaluate.NewEvaluator(allMetrics(ref.Cutoffs...))
	require.NoError(t, err)
	all, err := e.Score(b, nil)
	require.NoError(t, err)
	nk, mk := len(e.Keys()), len(ref.Cutoffs)
	for i, m := range allMetrics(ref.Cutoffs...) {
		out := make([]float64, b.Len()*mk)
		m.Compute(b, out)
		for r := range b.Len() {
			require.Equal(t, all[r*nk+i*mk:r*nk+(i+1)*mk], out[r*mk:(r+1)*mk], m.Keys())
		}
	}
}

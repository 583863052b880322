package classify_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/classify"
)

// refTol is the agreement required with scikit-learn's numbers in
// testdata/fixtures.json: 1e-12, absolute or relative (absolute for values
// near 0, such as the log loss of perfect predictions, relative for the
// rest).
const refTol = 1e-12

// fixtures is testdata/fixtures.json, written by testdata/gen_fixtures.py
// with scikit-learn (ECE with NumPy, by its definition; the bootstrap
// example's distribution by enumerating its draws).
type fixtures struct {
	Versions map[string]string `json:"versions"`
	Binary   []struct {
		Name      string             `json:"name"`
		Labels    []int8             `json:"labels"`
		Scores    []float64          `json:"scores"`
		Threshold float64            `json:"threshold"`
		Bins      int                `json:"bins"`
		Want      map[string]float64 `json:"want"`
		Errors    []string           `json:"errors"`
	} `json:"binary"`
	Multiclass []struct {
		Name   string             `json:"name"`
		K      int                `json:"k"`
		Labels []int32            `json:"labels"`
		Probs  []float64          `json:"probs"`
		Want   map[string]float64 `json:"want"`
		Errors []string           `json:"errors"`
	} `json:"multiclass"`
	// BootstrapExample is ExamplePairedBootstrapMulticlass's input, each
	// model's accuracy, and the exact distribution of the accuracy
	// difference under the stratified bootstrap, enumerated.
	BootstrapExample struct {
		K      int       `json:"k"`
		Labels []int32   `json:"labels"`
		Left   []float64 `json:"left"`
		Right  []float64 `json:"right"`
		Want   struct {
			Left          float64   `json:"left"`
			Right         float64   `json:"right"`
			Differences   []float64 `json:"differences"`
			Probabilities []float64 `json:"probabilities"`
			Quantile025   float64   `json:"quantile_025"`
			Quantile975   float64   `json:"quantile_975"`
			SD            float64   `json:"sd"`
			PValue        float64   `json:"p_value"`
		} `json:"want"`
	} `json:"bootstrap_example"`
}

func readFixtures(t *testing.T) fixtures {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures.json"))
	require.NoError(t, err)
	var f fixtures
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotEmpty(t, f.Versions["sklearn"])
	require.GreaterOrEqual(t, len(f.Binary), 10)
	require.GreaterOrEqual(t, len(f.Multiclass), 5)
	return f
}

// wantErrors is the error each metric returns where a fixture lists it
// under "errors": the ranking metrics for a single class, the
// probability metrics for scores outside [0, 1].
var wantErrors = map[string]error{
	"roc_auc":           classify.ErrSingleClass,
	"average_precision": classify.ErrSingleClass,
	"macro_roc_auc":     classify.ErrSingleClass,
	"log_loss":          classify.ErrNotProbability,
	"brier":             classify.ErrNotProbability,
	"ece":               classify.ErrNotProbability,
}

// requireClose requires got to equal want within refTol, absolute or
// relative, and returns the relative difference (the absolute one where
// want is 0).
func requireClose(t *testing.T, want, got float64, what string) float64 {
	t.Helper()
	require.Truef(t, scalar.EqualWithinAbsOrRel(got, want, refTol, refTol),
		"%s: got %.17g, want %.17g (difference %.3g)", what, got, want, got-want)
	d := math.Abs(got - want)
	if want != 0 {
		d /= math.Abs(want)
	}
	return d
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	f := readFixtures(t)
	checked := map[string]bool{}
	var worst float64
	var worstWhat string
	note := func(d float64, what string) {
		if d > worst {
			worst, worstWhat = d, what
		}
	}
	for _, c := range f.Binary {
		opts := classify.Options{Threshold: c.Threshold, Bins: c.Bins}
		for name, want := range c.Want {
			m, err := classify.ParseMetric(name)
			require.NoError(t, err)
			require.NotNil(t, m.Binary, name)
			got, err := m.Binary(c.Labels, c.Scores, opts)
			require.NoError(t, err, "%s: %s", c.Name, name)
			note(requireClose(t, want, got, c.Name+": "+name), c.Name+": "+name)
			checked["binary "+name] = true
		}
		for _, name := range c.Errors {
			m, err := classify.ParseMetric(name)
			require.NoError(t, err)
			_, err = m.Binary(c.Labels, c.Scores, opts)
			require.ErrorIs(t, err, wantErrors[name], "%s: %s", c.Name, name)
		}
	}
	for _, c := range f.Multiclass {
		for name, want := range c.Want {
			m, err := classify.ParseMetric(name)
			require.NoError(t, err)
			require.NotNil(t, m.Multiclass, name)
			got, err := m.Multiclass(c.Labels, c.Probs, c.K, classify.DefaultOptions())
			require.NoError(t, err, "%s: %s", c.Name, name)
			note(requireClose(t, want, got, c.Name+": "+name), c.Name+": "+name)
			checked["multiclass "+name] = true
		}
		for _, name := range c.Errors {
			m, err := classify.ParseMetric(name)
			require.NoError(t, err)
			_, err = m.Multiclass(c.Labels, c.Probs, c.K, classify.DefaultOptions())
			require.ErrorIs(t, err, wantErrors[name], "%s: %s", c.Name, name)
		}
	}
	for _, m := range classify.Metrics() {
		if m.Binary != nil {
			require.True(t, checked["binary "+m.Name], "no fixture checks binary %s", m.Name)
		}
		if m.Multiclass != nil {
			require.True(t, checked["multiclass "+m.Name], "no fixture checks multi-class %s", m.Name)
		}
	}
	t.Logf("largest relative difference from scikit-learn %s: %.3g (%s)", f.Versions["sklearn"], worst, worstWhat)
}

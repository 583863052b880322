package demo_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/demo"
	"github.com/verdict-ml/verdict/stats"
)

// cancerReference is testdata/cancer_reference.json, written by
// testdata/gen_cancer_reference.py with scikit-learn 1.2.1 (Debian's
// python3-sklearn): the same split, standardisation and penalised logistic
// regressions, fitted by scikit-learn's newton-cholesky solver.
type cancerReference struct {
	Train      int      `json:"train"`
	TestIDs    []string `json:"test_ids"`
	TestLabels []int8   `json:"test_labels"`
	Models     []struct {
		Name          string    `json:"name"`
		Features      []string  `json:"features"`
		Columns       []int     `json:"columns"`
		C             float64   `json:"C"`
		Mean          []float64 `json:"mean"`
		Scale         []float64 `json:"scale"`
		Intercept     float64   `json:"intercept"`
		Coef          []float64 `json:"coef"`
		Probabilities []float64 `json:"probabilities"`
	} `json:"models"`
}

// Tolerances against scikit-learn. Both fits run Newton's method on the same
// strictly convex objective until the gradient is at rounding level
// (scikit-learn's largest gradient component is below 1e-14, see the
// generator's output; FitLogistic's last step is below 1e-10, so by
// quadratic convergence its error is far smaller). What remains is rounding
// in different summation orders: the probabilities differ by at most 4.4e-16
// (the test logs it). 1e-9, well inside the 1e-6 an iterative fit stopped
// at a loose tolerance would need, leaves room for a reference regenerated
// with another NumPy or BLAS, while any difference of objective, penalty
// scaling or standardisation would move the probabilities by 1e-4 or more.
// The means and scales are plain sums, equal to rounding.
const (
	referenceFitTol   = 1e-9
	referenceScaleTol = 1e-12
)

func loadCancerReference(t *testing.T) cancerReference {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cancer_reference.json"))
	require.NoError(t, err)
	var ref cancerReference
	require.NoError(t, json.Unmarshal(b, &ref))
	require.Len(t, ref.Models, 2)
	return ref
}

func TestLoadBreastCancer(t *testing.T) {
	t.Parallel()
	ts, err := demo.LoadBreastCancer()
	require.NoError(t, err)
	// The data set's description: 569 instances, 212 malignant, 357 benign.
	require.Len(t, ts, 569)
	var malignant int
	for i, x := range ts {
		require.Equal(t, fmt.Sprintf("wdbc-%04d", i+1), x.ID)
		if x.Malignant {
			malignant++
		}
		for j, v := range x.Features {
			require.Falsef(t, math.IsNaN(v) || math.IsInf(v, 0), "%s %s", x.ID, demo.TumourFeatureName(j))
		}
	}
	require.Equal(t, 212, malignant)
	require.Equal(t, 357, len(ts)-malignant)

	// The file's first row, label 0 (malignant in scikit-learn's coding),
	// and its last row, label 1 (benign).
	first, last := ts[0], ts[len(ts)-1]
	require.True(t, first.Malignant)
	require.Equal(t, 17.99, first.Features[0], "mean radius")
	require.Equal(t, 10.38, first.Features[1], "mean texture")
	require.Equal(t, 0.1189, first.Features[29], "worst fractal dimension")
	require.False(t, last.Malignant)
	require.Equal(t, 30, demo.TumourFeatures)
	require.Equal(t, "mean radius", demo.TumourFeatureName(0))
	require.Equal(t, "radius error", demo.TumourFeatureName(10))
	require.Equal(t, "worst fractal dimension", demo.TumourFeatureName(29))
}

func TestSplitTumours(t *testing.T) {
	t.Parallel()
	tumours := func(classes string) []demo.Tumour { // "m" malignant, "b" benign
		out := make([]demo.Tumour, len(classes))
		for i, c := range classes {
			out[i] = demo.Tumour{ID: fmt.Sprint(i), Malignant: c == 'm'}
		}
		return out
	}
	ids := func(ts []demo.Tumour) []string {
		out := []string{}
		for _, x := range ts {
			out = append(out, x.ID)
		}
		return out
	}
	tests := []struct {
		name      string
		in        []demo.Tumour
		wantTrain []string
		wantTest  []string
	}{
		{name: "empty", in: nil, wantTrain: []string{}, wantTest: []string{}},
		{name: "fewer than three per class", in: tumours("mbmb"), wantTrain: []string{"0", "1", "2", "3"}, wantTest: []string{}},
		{name: "every third of each class", in: tumours("mmbmbbmbbb"),
			wantTrain: []string{"0", "1", "2", "4", "6", "7", "8"}, wantTest: []string{"3", "5", "9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := demo.SplitTumours(tt.in)
			require.Equal(t, tt.wantTrain, ids(s.Train))
			require.Equal(t, tt.wantTest, ids(s.Test))
		})
	}
}

// TestSplitTumoursStratified checks the split of the real data: each class
// sends a third to the test part, the parts partition the data, and both
// keep the file's order.
func TestSplitTumoursStratified(t *testing.T) {
	t.Parallel()
	ts, err := demo.LoadBreastCancer()
	require.NoError(t, err)
	s := demo.SplitTumours(ts)
	count := func(part []demo.Tumour) (malignant, benign int) {
		for _, x := range part {
			if x.Malignant {
				malignant++
			} else {
				benign++
			}
		}
		return malignant, benign
	}
	trM, trB := count(s.Train)
	teM, teB := count(s.Test)
	require.Equal(t, [4]int{142, 238, 70, 119}, [4]int{trM, trB, teM, teB}, "⌊212/3⌋ and ⌊357/3⌋ test tumours")

	seen := map[string]bool{}
	for _, part := range [][]demo.Tumour{s.Train, s.Test} {
		for i, x := range part {
			require.False(t, seen[x.ID], "%s in both parts", x.ID)
			seen[x.ID] = true
			if i > 0 {
				require.Less(t, part[i-1].ID, x.ID, "order kept")
			}
		}
	}
	require.Len(t, seen, len(ts))
}

// TestBreastCancerModels checks the two models' predictions: their shape,
// that they are probabilities strictly inside (0, 1), that two calls agree
// to the bit, and the AUCs and DeLong test the documentation quotes.
func TestBreastCancerModels(t *testing.T) {
	t.Parallel()
	preds, err := demo.BreastCancerModels()
	require.NoError(t, err)
	again, err := demo.BreastCancerModels()
	require.NoError(t, err)
	// Determinism is a claim about bits, so exact equality is the point.
	require.Equal(t, preds, again)

	ts, err := demo.LoadBreastCancer()
	require.NoError(t, err)
	test := demo.SplitTumours(ts).Test
	require.Len(t, preds, 2)
	require.Equal(t, "logistic-radius-texture", preds[0].Name)
	require.Equal(t, "logistic-all-features", preds[1].Name)
	for _, p := range preds {
		require.Len(t, p.SampleIDs, 189, p.Name)
		require.Len(t, p.Labels, 189, p.Name)
		require.Len(t, p.Scores, 189, p.Name)
		require.NotEmpty(t, p.Params, p.Name)
		for i, x := range test {
			require.Equal(t, x.ID, p.SampleIDs[i])
			require.Equal(t, x.Malignant, p.Labels[i] == 1)
			require.Truef(t, p.Scores[i] > 0 && p.Scores[i] < 1, "%s %s: %v", p.Name, x.ID, p.Scores[i])
		}
	}

	// The AUCs quoted in BreastCancerModels' documentation, to the four
	// places it gives them (scikit-learn's roc_auc_score on the reference
	// probabilities gives 0.956663 and 0.998920).
	const aucTol = 5e-5
	wantAUC := []float64{0.9567, 0.9989}
	for i, p := range preds {
		auc, err := classify.ROCAUC(p.Labels, p.Scores)
		require.NoError(t, err)
		require.InDelta(t, wantAUC[i], auc, aucTol, p.Name)
	}
	labels := make([]float64, len(preds[0].Labels))
	for i, l := range preds[0].Labels {
		labels[i] = float64(l)
	}
	dl, err := stats.DeLong(labels, preds[1].Scores, preds[0].Scores, stats.DeLongOptions{})
	require.NoError(t, err)
	require.InDelta(t, 0.042, dl.Diff, 5e-4)
	require.Less(t, dl.PValue, 0.01, "the documentation says DeLong calls the difference")
	require.InDelta(t, 0.0015, dl.PValue, 1e-4)
}

// TestBreastCancerModelsBits pins the models' scores to the bit: a SHA-256
// of their IEEE 754 bit patterns, big-endian, model by model, recorded on
// linux/amd64 with Go 1.26. The fits avoid every platform-dependent
// operation, so any platform must reproduce it; a change here means the
// numbers changed, which the story and any logged evaluation would notice.
func TestBreastCancerModelsBits(t *testing.T) {
	t.Parallel()
	preds, err := demo.BreastCancerModels()
	require.NoError(t, err)
	h := sha256.New()
	for _, p := range preds {
		for _, s := range p.Scores {
			require.NoError(t, binary.Write(h, binary.BigEndian, math.Float64bits(s)))
		}
	}
	require.Equal(t, "48ced44bec78115766a111ce946115787b26e8db24fef9367fed3445e8a89046", hex.EncodeToString(h.Sum(nil)))
}

// TestCancerReference refits both models and compares them with
// scikit-learn's fits in testdata/cancer_reference.json.
func TestCancerReference(t *testing.T) {
	t.Parallel()
	ref := loadCancerReference(t)
	ts, err := demo.LoadBreastCancer()
	require.NoError(t, err)
	s := demo.SplitTumours(ts)
	require.Len(t, s.Train, ref.Train)
	require.Len(t, s.Test, len(ref.TestIDs))
	for i, x := range s.Test {
		require.Equal(t, ref.TestIDs[i], x.ID)
		require.Equal(t, ref.TestLabels[i] == 1, x.Malignant, x.ID)
	}

	preds, err := demo.BreastCancerModels()
	require.NoError(t, err)
	for k, rm := range ref.Models {
		t.Run(rm.Name, func(t *testing.T) {
			m, err := demo.FitLogistic(s.Train, rm.Columns, rm.C)
			require.NoError(t, err)
			for j, col := range rm.Columns {
				require.Equal(t, rm.Features[j], demo.TumourFeatureName(col))
				require.Truef(t, scalar.EqualWithinAbsOrRel(rm.Mean[j], m.Mean[j], referenceScaleTol, referenceScaleTol), "mean %d: %v, sklearn %v", j, m.Mean[j], rm.Mean[j])
				require.Truef(t, scalar.EqualWithinAbsOrRel(rm.Scale[j], m.Scale[j], referenceScaleTol, referenceScaleTol), "scale %d: %v, sklearn %v", j, m.Scale[j], rm.Scale[j])
				require.Truef(t, scalar.EqualWithinAbsOrRel(rm.Coef[j], m.Coef[j], referenceFitTol, referenceFitTol), "coef %d: %v, sklearn %v", j, m.Coef[j], rm.Coef[j])
			}
			require.Truef(t, scalar.EqualWithinAbsOrRel(rm.Intercept, m.Intercept, referenceFitTol, referenceFitTol), "intercept: %v, sklearn %v", m.Intercept, rm.Intercept)

			p := preds[k]
			require.Equal(t, rm.Name, p.Name)
			require.Equal(t, rm.C, p.Params["C"])
			require.Equal(t, rm.Features, p.Params["features"])
			var worst float64
			for i, x := range s.Test {
				require.Equal(t, m.Probability(x), p.Scores[i], "BreastCancerModels scores with the same fit")
				worst = max(worst, math.Abs(p.Scores[i]-rm.Probabilities[i]))
				require.Truef(t, scalar.EqualWithinAbs(rm.Probabilities[i], p.Scores[i], referenceFitTol), "%s: %v, sklearn %v", x.ID, p.Scores[i], rm.Probabilities[i])
			}
			t.Logf("largest probability difference from scikit-learn: %.2g after %d Newton steps", worst, m.Iterations)
		})
	}
}

// TestCancerLogisticProbability checks the hand-written exponential behind
// Probability against math.Exp: a one-feature model with a unit
// coefficient has Probability(x) = σ(x). Both exponentials are accurate to
// within one unit in the last place, so σ agrees to a few of them; 1e-15
// relative is about four.
func TestCancerLogisticProbability(t *testing.T) {
	t.Parallel()
	m := &demo.Logistic{Features: []int{0}, Mean: []float64{0}, Scale: []float64{1}, C: 1, Coef: []float64{1}}
	const tol = 1e-15
	for x := -40.0; x <= 40; x += 0.0137 {
		var tm demo.Tumour
		tm.Features[0] = x
		want := 1 / (1 + math.Exp(-x))
		got := m.Probability(tm)
		require.Truef(t, scalar.EqualWithinRel(want, got, tol), "σ(%v) = %v, want %v", x, got, want)
	}
	var tm demo.Tumour
	tm.Features[0] = -800
	require.Equal(t, 0.0, m.Probability(tm), "e^−800 underflows")
	tm.Features[0] = 0
	require.Equal(t, 0.5, m.Probability(tm))
}

func TestCancerFitLogisticErrors(t *testing.T) {
	t.Parallel()
	ts, err := demo.LoadBreastCancer()
	require.NoError(t, err)
	var benign []demo.Tumour
	for _, x := range ts {
		if !x.Malignant {
			benign = append(benign, x)
		}
	}
	tests := []struct {
		name    string
		train   []demo.Tumour
		wantErr error
	}{
		{name: "empty", train: nil, wantErr: demo.ErrSingleClass},
		{name: "benign only", train: benign, wantErr: demo.ErrSingleClass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := demo.FitLogistic(tt.train, []int{0, 1}, 1)
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
	require.PanicsWithValue(t, "demo: logistic regression C = 0, want positive and finite", func() { _, _ = demo.FitLogistic(ts, []int{0}, 0) })
	require.PanicsWithValue(t, "demo: feature index 30 out of range [0, 30)", func() { _, _ = demo.FitLogistic(ts, []int{30}, 1) })

	// Intercept only: the fitted probability is the training share of
	// malignant tumours, 212/569.
	m, err := demo.FitLogistic(ts, nil, 1)
	require.NoError(t, err)
	require.InDelta(t, 212.0/569, m.Probability(ts[0]), 1e-12)
}

func ExampleBreastCancerModels() {
	preds, err := demo.BreastCancerModels()
	if err != nil {
		panic(err)
	}
	for _, p := range preds {
		auc, err := classify.ROCAUC(p.Labels, p.Scores)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d test tumours, %s = %.4f, ROC AUC %.4f\n", p.Name, len(p.Scores), p.SampleIDs[0], p.Scores[0], auc)
	}
	// Output:
	// logistic-radius-texture: 189 test tumours, wdbc-0003 = 0.9911, ROC AUC 0.9567
	// logistic-all-features: 189 test tumours, wdbc-0003 = 0.9996, ROC AUC 0.9989
}

func ExampleSplitTumours() {
	ts, err := demo.LoadBreastCancer()
	if err != nil {
		panic(err)
	}
	s := demo.SplitTumours(ts)
	fmt.Printf("%d training and %d test tumours; the first test tumours are %s, %s and %s\n",
		len(s.Train), len(s.Test), s.Test[0].ID, s.Test[1].ID, s.Test[2].ID)
	// Output:
	// 380 training and 189 test tumours; the first test tumours are wdbc-0003, wdbc-0006 and wdbc-0009
}

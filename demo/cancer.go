package demo

import (
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/verdict-ml/verdict"
)

// This file gives the demo a classification task: the Wisconsin Diagnostic
// Breast Cancer data (verdict.BreastCancer), a stratified hold-out split, and
// two logistic regressions whose predicted probabilities of malignancy are
// per-sample predictions for verdict's classification metrics and tests.
//
// The fits are written out in plain Go, not with gonum, so that they give
// the same bits on every platform: gonum's vector kernels are assembly on
// some architectures and Go on others, math.Exp is assembly on some, and the
// Go compiler may fuse x*y + z into one instruction where the hardware has
// it. Here every sum runs in a fixed order, every product that feeds a sum
// is rounded explicitly (float64(x*y), which the language forbids fusing),
// and the exponential is computed in Go the same way. Division and square
// root are correctly rounded everywhere, so the result does not depend on
// the platform.

// TumourFeatures is the number of features of a Tumour.
const TumourFeatures = 30

// tumourFeatureNames are the features' names, as scikit-learn gives them.
var tumourFeatureNames = [TumourFeatures]string{
	"mean radius", "mean texture", "mean perimeter", "mean area",
	"mean smoothness", "mean compactness", "mean concavity",
	"mean concave points", "mean symmetry", "mean fractal dimension",
	"radius error", "texture error", "perimeter error", "area error",
	"smoothness error", "compactness error", "concavity error",
	"concave points error", "symmetry error", "fractal dimension error",
	"worst radius", "worst texture", "worst perimeter", "worst area",
	"worst smoothness", "worst compactness", "worst concavity",
	"worst concave points", "worst symmetry", "worst fractal dimension",
}

// Feature indices the demo's models use.
const (
	meanRadius  = 0
	meanTexture = 1
)

// TumourFeatureName returns the name of feature i of Tumour.Features, as
// scikit-learn names it: "mean radius" (0) to "worst fractal dimension"
// (29). It panics if i is out of range.
func TumourFeatureName(i int) string {
	return tumourFeatureNames[i]
}

// Tumour is one sample of the Wisconsin Diagnostic Breast Cancer data: a
// fine-needle aspirate of a breast mass, described by features of the cell
// nuclei in its image, and its diagnosis.
type Tumour struct {
	// ID names the sample by its row in the data file: "wdbc-0001" for the
	// first data row to "wdbc-0569". (The file has no IDs of its own.)
	ID string
	// Features are ten measurements' mean, standard error and worst value,
	// in the order TumourFeatureName names them.
	Features  [TumourFeatures]float64
	Malignant bool
}

var (
	// ErrSingleClass is returned by FitLogistic when the training tumours
	// are all malignant or all benign: the unpenalised intercept then has
	// no finite optimum.
	ErrSingleClass = errors.New("training tumours are all of one class")

	// ErrNoConvergence is returned by FitLogistic when Newton's method has
	// not converged after 100 steps, or its Hessian is not numerically
	// positive definite; the message says which and gives the model's
	// features.
	ErrNoConvergence = errors.New("logistic regression did not converge")
)

// LoadBreastCancer reads the embedded Wisconsin Diagnostic Breast Cancer
// data: 569 tumours, 212 malignant and 357 benign, in the file's order. The
// file is scikit-learn's copy, whose header line "569,30,malignant,benign"
// gives the number of rows and features and the names of labels 0 and 1;
// LoadBreastCancer checks all four, so a file coded the other way round is
// refused rather than read with its labels swapped.
func LoadBreastCancer() ([]Tumour, error) {
	const name = "testdata/breast-cancer-wisconsin/breast_cancer.csv.gz"
	f, err := verdict.BreastCancer.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("breast cancer data: %w", err)
	}
	r := csv.NewReader(z)
	r.FieldsPerRecord = -1 // the header has 4 fields, the rows 31
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("breast cancer data: %w", err)
	}
	if len(head) != 4 || head[1] != strconv.Itoa(TumourFeatures) || head[2] != "malignant" || head[3] != "benign" {
		return nil, fmt.Errorf("breast cancer data line 1: header %q, want \"<rows>,30,malignant,benign\"", head)
	}
	rows, err := strconv.Atoi(head[0])
	if err != nil {
		return nil, fmt.Errorf("breast cancer data line 1: row count: %w", err)
	}
	out := make([]Tumour, 0, rows)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("breast cancer data: %w", err)
		}
		line := len(out) + 2
		if len(rec) != TumourFeatures+1 {
			return nil, fmt.Errorf("breast cancer data line %d: %d fields, want %d", line, len(rec), TumourFeatures+1)
		}
		t := Tumour{ID: fmt.Sprintf("wdbc-%04d", len(out)+1)}
		for j := range TumourFeatures {
			v, err := strconv.ParseFloat(rec[j], 64)
			if err != nil {
				return nil, fmt.Errorf("breast cancer data line %d, %s: %w", line, tumourFeatureNames[j], err)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("breast cancer data line %d, %s: %v is not finite", line, tumourFeatureNames[j], v)
			}
			t.Features[j] = v
		}
		switch rec[TumourFeatures] {
		case "0":
			t.Malignant = true
		case "1":
		default:
			return nil, fmt.Errorf("breast cancer data line %d: label %q, want 0 (malignant) or 1 (benign)", line, rec[TumourFeatures])
		}
		out = append(out, t)
	}
	if len(out) != rows {
		return nil, fmt.Errorf("breast cancer data: %d rows, the header says %d", len(out), rows)
	}
	return out, nil
}

// TumourSplit is a hold-out split of tumours into a training and a test
// part.
type TumourSplit struct {
	Train, Test []Tumour
}

// SplitTumours holds out every third tumour of each class: counting
// malignant and benign tumours separately, in the order given, the 3rd,
// 6th, 9th, … of each class are test tumours and the others train. The
// split is deterministic and stratified, each class contributing
// ⌊n_class/3⌋ tumours to the test part, so both parts have the class shares
// of the whole up to rounding. On the 569 tumours of LoadBreastCancer that
// is 70 of the 212 malignant and 119 of the 357 benign: 189 test and 380
// training tumours. Both parts keep the order given. A class with fewer
// than three tumours has none in the test part; an empty input gives two
// empty parts.
//
// Interleaving rather than drawing at random keeps the split the same on
// every run and platform without a seed, and the file's order is not
// sorted by anything the models see.
func SplitTumours(ts []Tumour) TumourSplit {
	var s TumourSplit
	var seen [2]int // benign, malignant
	for _, t := range ts {
		c := 0
		if t.Malignant {
			c = 1
		}
		seen[c]++
		if seen[c]%3 == 0 {
			s.Test = append(s.Test, t)
		} else {
			s.Train = append(s.Train, t)
		}
	}
	return s
}

// Logistic is a logistic regression fitted by FitLogistic. It predicts the
// probability that a tumour is malignant as
//
//	p = σ(Intercept + Σ_j Coef_j · (x_j − Mean_j) / Scale_j),  σ(t) = 1 / (1 + e^−t),
//
// where x_j is the tumour's feature Features[j]: the coefficients act on
// features standardised with the training part's mean and scale.
type Logistic struct {
	Features []int // indices into Tumour.Features
	// Mean and Scale are each feature's mean and population standard
	// deviation (divisor n) over the training tumours.
	Mean, Scale []float64
	// C is the inverse strength of the L2 penalty, as scikit-learn's
	// LogisticRegression states it.
	C         float64
	Intercept float64
	Coef      []float64 // one per feature, on the standardised scale
	// Iterations is the number of Newton steps the fit took.
	Iterations int
}

// Newton's method stops once no component of a step exceeds
// logisticStepTol; convergence is quadratic, so the weights are then at the
// optimum to rounding. A fit that needs more than logisticMaxSteps steps is
// refused.
const (
	logisticStepTol  = 1e-10
	logisticMaxSteps = 100
)

// FitLogistic fits a logistic regression of Malignant on the given features
// of train, standardised to zero mean and unit population variance over
// train as scikit-learn's StandardScaler does (a feature constant in train
// keeps scale 1, so its standardised value is 0 in training). With z_i the
// standardised features of tumour i, y_i = 1 for malignant and 0 for benign
// and p_i = σ(b + w·z_i), it minimises
//
//	L(b, w) = −Σ_i [y_i log p_i + (1 − y_i) log(1 − p_i)] + ‖w‖² / (2C),
//
// which is scikit-learn's LogisticRegression(C=C, penalty="l2") objective
// C·(log loss) + ‖w‖²/2 divided by C: the same optimum, with the intercept
// b unpenalised. L is strictly convex, so the optimum is unique and finite
// as long as train holds both classes, even when they are separable.
//
// The fit is Newton's method from b = 0, w = 0: with X the design matrix
// [1 z], the gradient g = Xᵀ(p − y) + (0, w)/C and the Hessian
// H = Xᵀ diag(p(1 − p)) X + diag(0, 1/C, …, 1/C), each step subtracts
// H⁻¹g, solved by Cholesky. It stops when no component of the step
// exceeds 1e-10.
//
// FitLogistic returns ErrSingleClass if train has no malignant or no benign
// tumour (including an empty train), and ErrNoConvergence if Newton's
// method fails. It panics if c is not positive and finite or a feature
// index is out of range. No features at all fits the intercept alone.
func FitLogistic(train []Tumour, features []int, c float64) (*Logistic, error) {
	if !(c > 0) || math.IsInf(c, 1) {
		panic(fmt.Sprintf("demo: logistic regression C = %v, want positive and finite", c))
	}
	for _, j := range features {
		if j < 0 || j >= TumourFeatures {
			panic(fmt.Sprintf("demo: feature index %d out of range [0, %d)", j, TumourFeatures))
		}
	}
	n, d := len(train), len(features)
	y := make([]float64, n)
	var malignant int
	for i, t := range train {
		if t.Malignant {
			y[i] = 1
			malignant++
		}
	}
	if malignant == 0 || malignant == n {
		return nil, fmt.Errorf("%w: %d tumours, %d malignant", ErrSingleClass, n, malignant)
	}

	m := &Logistic{
		Features: append([]int(nil), features...),
		Mean:     make([]float64, d),
		Scale:    make([]float64, d),
		C:        c,
		Coef:     make([]float64, d),
	}
	// x is the design matrix, row-major n × (d+1), its first column 1.
	x := make([]float64, n*(d+1))
	for k, j := range features {
		var sum float64
		for _, t := range train {
			sum += t.Features[j]
		}
		mean := sum / float64(n)
		var ss float64
		for _, t := range train {
			dev := t.Features[j] - mean
			ss += float64(dev * dev)
		}
		scale := math.Sqrt(ss / float64(n))
		if scale == 0 {
			scale = 1
		}
		m.Mean[k], m.Scale[k] = mean, scale
		for i, t := range train {
			x[i*(d+1)+1+k] = (t.Features[j] - mean) / scale
		}
	}
	for i := range n {
		x[i*(d+1)] = 1
	}

	p := d + 1
	w := make([]float64, p) // intercept, then coefficients
	grad := make([]float64, p)
	hess := make([]float64, p*p)
	lambda := 1 / c
	for step := 1; step <= logisticMaxSteps; step++ {
		clear(grad)
		clear(hess)
		for i := range n {
			row := x[i*p : (i+1)*p]
			prob, curv := sigmoid(dot(row, w))
			r := prob - y[i]
			for a := range p {
				grad[a] += float64(r * row[a])
				ca := float64(curv * row[a])
				for b := 0; b <= a; b++ {
					hess[a*p+b] += float64(ca * row[b])
				}
			}
		}
		for a := 1; a < p; a++ {
			grad[a] += float64(lambda * w[a])
			hess[a*p+a] += lambda
		}
		for a := range p { // mirror the lower triangle
			for b := a + 1; b < p; b++ {
				hess[a*p+b] = hess[b*p+a]
			}
		}
		delta, ok := choleskySolve(hess, grad, p)
		if !ok {
			return nil, fmt.Errorf("%w: features %v, C = %v: Hessian not positive definite at step %d", ErrNoConvergence, features, c, step)
		}
		var largest float64
		for a := range p {
			w[a] -= delta[a]
			largest = max(largest, math.Abs(delta[a]))
		}
		if largest <= logisticStepTol {
			m.Intercept = w[0]
			copy(m.Coef, w[1:])
			m.Iterations = step
			return m, nil
		}
	}
	return nil, fmt.Errorf("%w: features %v, C = %v: %d Newton steps", ErrNoConvergence, features, c, logisticMaxSteps)
}

// Logit returns the model's log-odds that t is malignant, the argument of σ
// in Probability.
func (m *Logistic) Logit(t Tumour) float64 {
	s := m.Intercept
	for k, j := range m.Features {
		s += float64(m.Coef[k] * ((t.Features[j] - m.Mean[k]) / m.Scale[k]))
	}
	return s
}

// Probability returns the model's probability that t is malignant,
// σ(Logit(t)). It lies strictly inside (0, 1) while the logit lies inside
// (−745, 36.7); beyond, float64 rounds it to 0 or 1.
func (m *Logistic) Probability(t Tumour) float64 {
	p, _ := sigmoid(m.Logit(t))
	return p
}

// ClassifierPredictions is one model's predictions for the test tumours:
// its probability that each one is malignant.
type ClassifierPredictions struct {
	Name string
	// Params describe the model, for logging it: the kind of model, its
	// features' names, C, and the split.
	Params    map[string]any
	SampleIDs []string
	Labels    []int8    // 1 = malignant, 0 = benign
	Scores    []float64 // predicted probabilities of malignancy
}

// BreastCancerModels loads the Wisconsin Diagnostic Breast Cancer data,
// splits it with SplitTumours, fits two logistic regressions (FitLogistic)
// on the 380 training tumours and returns each one's probabilities for the
// 189 test tumours, in the test part's order:
//
//   - "logistic-radius-texture": mean radius and mean texture, C = 1
//     (scikit-learn's default, a penalty that barely matters for two
//     features and 380 tumours);
//   - "logistic-all-features": all 30 features, C = 0.1.
//
// On the test tumours their ROC AUCs are 0.9567 and 0.9989, and DeLong's
// paired test calls the difference of 0.042 (p ≈ 0.0015): the two simple
// measurements rank most tumours right, and the full set of measurements
// does clearly better. The stronger penalty keeps every probability
// strictly inside (0, 1): with C = 1 the all-feature model's largest test
// logit is 37.4, where a float64 probability rounds to 1 and log loss is
// infinite; with C = 0.1 it is 18.3, and the AUC is nearly the same
// (0.9983 with C = 1). The results are the same bits on every run and
// platform.
func BreastCancerModels() ([]ClassifierPredictions, error) {
	tumours, err := LoadBreastCancer()
	if err != nil {
		return nil, err
	}
	s := SplitTumours(tumours)
	all := make([]int, TumourFeatures)
	for j := range all {
		all[j] = j
	}
	specs := []struct {
		name     string
		features []int
		c        float64
	}{
		{"logistic-radius-texture", []int{meanRadius, meanTexture}, 1},
		{"logistic-all-features", all, 0.1},
	}
	out := make([]ClassifierPredictions, 0, len(specs))
	for _, spec := range specs {
		m, err := FitLogistic(s.Train, spec.features, spec.c)
		if err != nil {
			return nil, fmt.Errorf("breast cancer model %s: %w", spec.name, err)
		}
		names := make([]string, len(spec.features))
		for k, j := range spec.features {
			names[k] = tumourFeatureNames[j]
		}
		pred := ClassifierPredictions{
			Name: spec.name,
			Params: map[string]any{
				"model":        "logistic-regression",
				"features":     names,
				"C":            spec.c,
				"penalty":      "l2",
				"standardised": true,
				"split":        "every third tumour of each class held out",
			},
			SampleIDs: make([]string, len(s.Test)),
			Labels:    make([]int8, len(s.Test)),
			Scores:    make([]float64, len(s.Test)),
		}
		for i, t := range s.Test {
			pred.SampleIDs[i] = t.ID
			if t.Malignant {
				pred.Labels[i] = 1
			}
			pred.Scores[i] = m.Probability(t)
		}
		out = append(out, pred)
	}
	return out, nil
}

// dot returns Σ a_i b_i, summed in index order with each product rounded.
func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

// sigmoid returns σ(t) = 1/(1 + e^−t) and its derivative σ(t)(1 − σ(t)),
// both from e = e^−|t| so that the exponential never overflows:
// σ = 1/(1 + e) for t ≥ 0 and e/(1 + e) for t < 0, σ(1 − σ) = e/(1 + e)².
func sigmoid(t float64) (p, curv float64) {
	e := expNonPositive(-math.Abs(t))
	q := 1 + e
	if t >= 0 {
		p = 1 / q
	} else {
		p = e / q
	}
	return p, e / float64(q*q)
}

// expNonPositive returns e^x for x ≤ 0 (NaN for NaN). It is Go's portable
// math.exp, the FreeBSD msun algorithm, restricted to x ≤ 0 and with every
// product rounded explicitly, so that it gives the same bits on every
// platform; math.Exp may use an assembly version that differs in the last
// bit. Argument reduction: x = k·ln2 + r with |r| ≤ ln2/2, r computed as
// hi − lo for extra precision; then e^r from a degree-5 minimax polynomial
// in r², and e^x = 2^k · e^r.
func expNonPositive(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)

		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > 0:
		panic("demo: expNonPositive of a positive number")
	case x < underflow:
		return 0
	case x > -nearZero:
		return 1 + x
	}
	k := int(float64(log2e*x) - 0.5)
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	r := hi - lo
	t := float64(r * r)
	poly := p1 + float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))
	c := r - float64(t*poly)
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// choleskySolve solves A x = b for a symmetric positive definite n × n
// matrix A (row-major; only its lower triangle is read) by the Cholesky
// factorisation A = L Lᵀ, then forward and back substitution. It reports
// false if a pivot is not positive, i.e. A is not numerically positive
// definite. It leaves a and b unchanged.
func choleskySolve(a, b []float64, n int) ([]float64, bool) {
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i*n+j]
			for k := range j {
				s -= float64(l[i*n+k] * l[j*n+k])
			}
			if i == j {
				if !(s > 0) {
					return nil, false
				}
				l[i*n+i] = math.Sqrt(s)
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	x := make([]float64, n)
	for i := range n { // L z = b
		s := b[i]
		for k := range i {
			s -= float64(l[i*n+k] * x[k])
		}
		x[i] = s / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- { // Lᵀ x = z
		s := x[i]
		for k := i + 1; k < n; k++ {
			s -= float64(l[k*n+i] * x[k])
		}
		x[i] = s / l[i*n+i]
	}
	return x, true
}

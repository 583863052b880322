package stats

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"runtime"
	"testing"
)

// seedsReference is testdata/reference/seeds.json, written by gen_seeds.py
// with NumPy and statsmodels, independently of this package.
type seedsReference struct {
	A, B           [][]float64
	MeanA          float64 `json:"mean_a"`
	MeanB          float64 `json:"mean_b"`
	Difference     float64
	AnovaA, AnovaB VarianceComponents `json:"-"`
	RawAnovaA      map[string]float64 `json:"anova_a"`
	RawAnovaB      map[string]float64 `json:"anova_b"`
	RemlA          map[string]float64 `json:"reml_a"`
	RemlB          map[string]float64 `json:"reml_b"`
	Resamples      int
	CILow          float64 `json:"ci_low_95"`
	CIHigh         float64 `json:"ci_high_95"`
	PValue         float64 `json:"p_value"`
	SE, DF         float64
	BBeatsA        float64 `json:"b_beats_a"`
	MeanASE        float64 `json:"mean_a_se"`
	MeanADF        float64 `json:"mean_a_df"`
	MeanACILow     float64 `json:"mean_a_ci_low_95"`
	MeanACIHigh    float64 `json:"mean_a_ci_high_95"`
}

func loadSeeds(t *testing.T) seedsReference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference/seeds.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref seedsReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestSeedBootstrapAgainstNumPy(t *testing.T) {
	t.Parallel()
	ref := loadSeeds(t)
	got, err := SeedBootstrap(ref.A, ref.B, SeedOptions{Resamples: ref.Resamples, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.9g, want %.9g ± %g", what, got, want, tol)
		}
	}
	// Deterministic: the same arithmetic as NumPy's.
	near("mean a", got.MeanA, ref.MeanA, 1e-12)
	near("mean b", got.MeanB, ref.MeanB, 1e-12)
	near("difference", got.Difference, ref.Difference, 1e-12)
	near("b beats a", got.BBeatsA, ref.BBeatsA, 0)
	for _, c := range []struct {
		name      string
		got       VarianceComponents
		anova, re map[string]float64
	}{{"a", got.A, ref.RawAnovaA, ref.RemlA}, {"b", got.B, ref.RawAnovaB, ref.RemlB}} {
		// The ANOVA estimates to rounding; statsmodels' REML, found by its
		// optimiser, to 0.1 % (for a balanced design the two are equal
		// when positive).
		near(c.name+" seed (ANOVA)", c.got.Seed, c.anova["seed"], 1e-12)
		near(c.name+" user (ANOVA)", c.got.User, c.anova["user"], 1e-12)
		near(c.name+" residual (ANOVA)", c.got.Residual, c.anova["residual"], 1e-12)
		near(c.name+" seed (REML)", c.got.Seed, c.re["seed"], 1e-3*c.re["seed"])
		near(c.name+" user (REML)", c.got.User, c.re["user"], 1e-3*c.re["user"])
		near(c.name+" residual (REML)", c.got.Residual, c.re["residual"], 1e-3*c.re["residual"])
	}
	// The t reference's degrees of freedom are the run means', exactly.
	near("degrees of freedom", got.DF, ref.DF, 1e-9)
	// Monte Carlo: two bootstraps of 20,000 replicates with different
	// random numbers. A standard deviation's standard error is about
	// sd/√(2B) = 8.6e-5 here, 1.2e-4 for the difference of two: allow 4 of
	// them, and for the bounds, t(6)'s 2.45 times that.
	near("standard error", got.SE, ref.SE, 4.8e-4)
	near("interval's low bound", got.CILow, ref.CILow, 1.2e-3)
	near("interval's high bound", got.CIHigh, ref.CIHigh, 1.2e-3)
	near("p-value", got.PValue, ref.PValue, 0.02)
	pooled := (3*got.A.Seed + 4*got.B.Seed) / 7
	near("pooled seed variance", got.Seed, pooled, 1e-15)
	near("run to run", got.RunToRun, math.Sqrt(2*(pooled+(3*got.A.Residual+4*got.B.Residual)/7/120)), 1e-15)
}

// TestSeedMeanAgainstNumPy checks one configuration's mean and its
// two-level interval against gen_seeds.py's NumPy bootstrap of 20,000
// replicates: the mean and degrees of freedom exactly, the standard error
// and bounds within Monte Carlo error.
func TestSeedMeanAgainstNumPy(t *testing.T) {
	t.Parallel()
	ref := loadSeeds(t)
	mean, se, df, err := SeedMean(ref.A, SeedOptions{Resamples: ref.Resamples, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mean.Estimate-ref.MeanA) > 1e-12 || df != ref.MeanADF || mean.Confidence != 0.95 {
		t.Fatalf("mean %.12g df %g confidence %g, want %.12g df %g confidence 0.95", mean.Estimate, df, mean.Confidence, ref.MeanA, ref.MeanADF)
	}
	// The standard error of a standard deviation of 20,000 replicates is
	// about sd/√(2B) = 8.2e-5 here, 1.2e-4 for two: allow 4 of them, and
	// t(3)'s 3.18 times that for the bounds.
	for _, c := range []struct {
		what           string
		got, want, tol float64
	}{{"standard error", se, ref.MeanASE, 4.8e-4}, {"low bound", mean.Low, ref.MeanACILow, 1.6e-3}, {"high bound", mean.High, ref.MeanACIHigh, 1.6e-3}} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.9g, want %.9g ± %g", c.what, c.got, c.want, c.tol)
		}
	}
	// One run: the users' degrees of freedom.
	if _, _, df, err := SeedMean(ref.A[:1], SeedOptions{}); err != nil || df != float64(len(ref.A[0])-1) {
		t.Fatalf("one run: df %g, %v; want %d", df, err, len(ref.A[0])-1)
	}
	if _, _, _, err := SeedMean(nil, SeedOptions{}); !errors.Is(err, ErrTooFew) {
		t.Fatalf("no run: %v, want ErrTooFew", err)
	}
}

// The same seed gives the same bootstrap, bit for bit, on one core or
// several; another seed another one.
func TestSeedBootstrapReproducible(t *testing.T) {
	ref := loadSeeds(t)
	opts := SeedOptions{Resamples: 3000, Seed: 11}
	one, err := SeedBootstrap(ref.A, ref.B, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	serial, err := SeedBootstrap(ref.A, ref.B, opts)
	if err != nil {
		t.Fatal(err)
	}
	if one != serial {
		t.Fatalf("GOMAXPROCS changed the result: %+v vs %+v", one, serial)
	}
	opts.Seed = 12
	other, _ := SeedBootstrap(ref.A, ref.B, opts)
	if other.CILow == one.CILow && other.CIHigh == one.CIHigh {
		t.Fatal("another seed drew the same interval")
	}
}

func TestSeedBootstrapRefuses(t *testing.T) {
	t.Parallel()
	run := []float64{1, 2, 3}
	for _, c := range []struct {
		a, b [][]float64
		opts SeedOptions
		want error
	}{
		{nil, [][]float64{run}, SeedOptions{}, ErrTooFew},
		{[][]float64{{}}, [][]float64{run}, SeedOptions{}, ErrTooFew},
		{[][]float64{run}, [][]float64{{1, 2}}, SeedOptions{}, ErrBadParameter},
		{[][]float64{run, {1, math.NaN(), 3}}, [][]float64{run}, SeedOptions{}, ErrBadParameter},
		{[][]float64{run}, [][]float64{run}, SeedOptions{Confidence: 1.5}, ErrBadParameter},
		{[][]float64{run}, [][]float64{run}, SeedOptions{Resamples: -1}, ErrBadParameter},
	} {
		if _, err := SeedBootstrap(c.a, c.b, c.opts); !errors.Is(err, c.want) {
			t.Errorf("SeedBootstrap(%v, %v, %+v) = %v, want %v", c.a, c.b, c.opts, err, c.want)
		}
	}
	// One run each: no seed variance can be told, and the interval is the
	// users' alone.
	got, err := SeedBootstrap([][]float64{{0, 1, 1, 0}}, [][]float64{{1, 1, 1, 0}}, SeedOptions{Resamples: 500})
	if err != nil {
		t.Fatal(err)
	}
	if got.Seed != 0 || got.A.User == 0 || got.Difference != -0.25 {
		t.Fatalf("one run each: %+v", got)
	}
}

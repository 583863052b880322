package stats

import (
	"fmt"
	"math"
)

// PairedUnits are two sides' per-unit sums and row counts, paired by index:
// unit u (a user, say) has LeftSum[u] and RightSum[u], the sums of its
// scores over its Rows[u] rows (evaluation draws) on each side. It is what
// a pairing join of per-unit sums yields; PairedBootstrapUnits and
// RandomizationUnits take it as it is, without expanding it back into rows.
type PairedUnits struct {
	// LeftSum and RightSum are each unit's sum of scores on the two sides.
	LeftSum, RightSum []float64
	// Rows is each unit's number of rows, the same on both sides; nil when
	// every unit has one row.
	Rows []int32
}

// unitDifferences is PairedUnits checked: S_u = LeftSum[u] − RightSum[u],
// m_u as float64 (nil when every unit has one row, whether Rows is nil or
// all ones) and M = Σ m_u.
type unitDifferences struct {
	sums      []float64
	rows      []float64
	totalRows float64
}

// check validates u and returns its differences. Sums of different
// lengths, or Rows of another length, return ErrLengths; a row count below
// 1 returns ErrBadParameter; a NaN or ±Inf sum, or a difference that
// overflows, returns ErrNotFinite naming the unit's index. No units is not
// an error here.
func (u PairedUnits) check() (unitDifferences, error) {
	n := len(u.LeftSum)
	if len(u.RightSum) != n {
		return unitDifferences{}, fmt.Errorf("%w: left has %d unit sums, right has %d", ErrLengths, n, len(u.RightSum))
	}
	if u.Rows != nil && len(u.Rows) != n {
		return unitDifferences{}, fmt.Errorf("%w: %d row counts for %d units", ErrLengths, len(u.Rows), n)
	}
	ones := true
	for i, m := range u.Rows {
		if m < 1 {
			return unitDifferences{}, fmt.Errorf("%w: unit %d has %d rows; every unit needs at least 1", ErrBadParameter, i, m)
		}
		ones = ones && m == 1
	}
	d := unitDifferences{sums: make([]float64, n), totalRows: float64(n)}
	for i := range n {
		l, r := u.LeftSum[i], u.RightSum[i]
		switch {
		case math.IsNaN(l) || math.IsInf(l, 0):
			return unitDifferences{}, fmt.Errorf("%w: left sum of unit %d is %v", ErrNotFinite, i, l)
		case math.IsNaN(r) || math.IsInf(r, 0):
			return unitDifferences{}, fmt.Errorf("%w: right sum of unit %d is %v", ErrNotFinite, i, r)
		}
		d.sums[i] = l - r
		if math.IsInf(d.sums[i], 0) {
			return unitDifferences{}, fmt.Errorf("%w: left − right of unit %d overflows to %v", ErrNotFinite, i, d.sums[i])
		}
	}
	if !ones {
		d.rows = make([]float64, n)
		d.totalRows = 0
		for i, m := range u.Rows {
			d.rows[i] = float64(m)
			d.totalRows += float64(m)
		}
	}
	return d, nil
}

// bootSample returns the sample the cluster bootstrap resamples. With one
// row a unit it is the one PairedBootstrap builds from rows. Otherwise the
// estimate is Σ S_u / M, and the sample is constant when every unit's mean
// S_u / m_u is the same, as it is when every row has the same difference.
func (d unitDifferences) bootSample() *bootSample {
	if d.rows == nil {
		return newBootSample(d.sums, nil)
	}
	first := d.sums[0] / d.rows[0]
	constant := true
	for u := range d.sums {
		if d.sums[u]/d.rows[u] != first {
			constant = false
			break
		}
	}
	rowMean := accurateSum(d.sums) / d.totalRows
	if constant {
		rowMean = first
	}
	return bootSampleOf(d.sums, d.rows, rowMean, constant)
}

// PairedBootstrapUnits is PairedBootstrap on per-unit sums and row counts:
// the cluster bootstrap of units, with the row-weighted mean difference
//
//	θ̂ = Σ_u (L_u − R_u) / Σ_u m_u
//
// as the estimate and as the statistic of each resample of units (see
// PairedBootstrap). It gives what PairedBootstrap gives on the rows
// expanded from u (m_u rows at L_u/m_u and R_u/m_u, one unit id per unit),
// without the rows: with Rows nil, or all ones, the very same result, bit
// for bit, as PairedBootstrap(LeftSum, RightSum, nil, opts); with other
// Rows, the same to rounding, the sums being taken once instead of m_u
// additions of a unit's mean. (BCa on a handful of units is the exception:
// replicates that redraw every unit once tie the estimate, and rounding
// puts such a tie on either side of it, moving the bias correction.)
//
// Edge cases are PairedBootstrap's: a single unit, or units that all have
// the same mean difference (L_u − R_u)/m_u, give the zero-width interval at
// the estimate. No units returns ErrTooFew; sums of different lengths, or
// Rows of another length, ErrLengths; a NaN or ±Inf sum, or a difference
// that overflows, ErrNotFinite naming the unit's index; a row count below 1
// or a bad option ErrBadParameter.
func PairedBootstrapUnits(u PairedUnits, opts BootstrapOptions) (BootstrapResult, error) {
	cfg, err := opts.resolve()
	if err != nil {
		return BootstrapResult{}, err
	}
	d, err := u.check()
	if err != nil {
		return BootstrapResult{}, err
	}
	if len(d.sums) == 0 {
		return BootstrapResult{}, fmt.Errorf("%w: the paired bootstrap needs at least 1 unit, got 0", ErrTooFew)
	}
	return cfg.run(d.bootSample())
}

// RandomizationUnits is Randomization on per-unit sums and row counts: the
// sign-flip test of whole units, with statistic T = Σ_u s_u·(L_u − R_u),
// and Estimate the row-weighted mean difference Σ_u (L_u − R_u) / Σ_u m_u.
// With Rows nil, or all ones, it returns the very same result, bit for bit,
// as Randomization(LeftSum, RightSum, nil, opts); with other Rows, what
// Randomization returns on the rows expanded from u (m_u rows at L_u/m_u
// and R_u/m_u, one unit id per unit), to rounding.
//
// Edge cases are Randomization's: p = 1 with no resampling when every unit
// difference is zero to within floating-point error,
// |L_u − R_u| ≤ 1e-12·max(|L_u|, |R_u|), and p = 1 for a single unit. No
// units returns ErrTooFew; sums of different lengths, or Rows of another
// length, ErrLengths; a NaN or ±Inf sum, or a difference that overflows,
// ErrNotFinite naming the unit's index; a row count below 1 or a negative
// number of permutations ErrBadParameter.
func RandomizationUnits(u PairedUnits, opts RandomizationOptions) (RandomizationResult, error) {
	B, err := opts.permutations()
	if err != nil {
		return RandomizationResult{}, err
	}
	d, err := u.check()
	if err != nil {
		return RandomizationResult{}, err
	}
	if len(d.sums) == 0 {
		return RandomizationResult{}, fmt.Errorf("%w: the randomisation test needs at least 1 unit, got 0", ErrTooFew)
	}
	res := RandomizationResult{Estimate: accurateSum(d.sums) / d.totalRows, Permutations: B, PValue: 1}
	if differencesAllZero(u.LeftSum, u.RightSum, d.sums) {
		return res, nil
	}
	res.PValue, err = signFlipPValue(opts.Context, d.sums, B, opts.Seed)
	return res, err
}

// PairedUnitDifferences returns each unit's mean difference
//
//	D_u = (L_u − R_u) / m_u
//
// (L_u − R_u with Rows nil): the difference of the unit's mean scores, one
// value a unit, as a paired t-test or Wilcoxon test of units takes it. No
// units gives an empty slice. Errors are PairedBootstrapUnits': ErrLengths,
// ErrNotFinite naming the unit, ErrBadParameter for a row count below 1.
func PairedUnitDifferences(u PairedUnits) ([]float64, error) {
	d, err := u.check()
	if err != nil {
		return nil, err
	}
	if d.rows == nil {
		return d.sums, nil
	}
	for i := range d.sums {
		d.sums[i] /= d.rows[i]
	}
	return d.sums, nil
}

// DifferenceVariance returns the variance of the paired differences per
// unit that sizes a paired test of the row-weighted mean difference
// θ̂ = Σ_u (L_u − R_u) / Σ_u m_u, the Variance SampleSizeOptions and
// MDEOptions take. With n units, mean row count m̄ = Σ_u m_u / n and
// D_u = (L_u − R_u) / m_u,
//
//	V = Σ_u (m_u / m̄)² · (D_u − θ̂)² / (n − 1)
//
// so that V / n is the (linearised) sampling variance of θ̂, the variance
// the cluster bootstrap's interval reflects.
//
// What that means for draws:
//   - Rows nil, or every unit with one row: V is the sample variance (n − 1
//     denominator) of the differences L_u − R_u.
//   - Every unit with the same m rows: V is the sample variance of the
//     per-unit mean differences D_u, around their mean θ̂. It is not the
//     variance of row-level differences: draws of one unit are averaged
//     first, since the unit is the independent observation.
//   - Units with different row counts: each D_u's deviation from θ̂ is
//     weighted by its unit's relative size m_u / m̄, as the row-weighted
//     estimator weights it; V is then not the plain sample variance of the
//     D_u, which would understate the spread that large units carry.
//
// The deviations are summed with the compensated two-pass formula, and V is
// exactly 0 when every D_u is the same. SampleSizeOptions reads a Variance
// of 0 as "assume the worst case", so a caller must handle V = 0 itself
// rather than pass it on: every unit then differs by the same amount, and
// the data hold no spread to size a test against.
//
// Fewer than 2 units return ErrTooFew; other errors are
// PairedUnitDifferences'.
func DifferenceVariance(u PairedUnits) (float64, error) {
	d, err := u.check()
	if err != nil {
		return 0, err
	}
	n := len(d.sums)
	if n < 2 {
		return 0, fmt.Errorf("%w: the variance of unit differences needs at least 2 units, got %d", ErrTooFew, n)
	}
	if d.rows == nil {
		if allEqual(d.sums) {
			return 0, nil
		}
		_, v := meanVariance(d.sums)
		return v, nil
	}
	first, same := d.sums[0]/d.rows[0], true
	for i := range d.sums {
		same = same && d.sums[i]/d.rows[i] == first
	}
	if same {
		return 0, nil
	}
	theta := accurateSum(d.sums) / d.totalRows
	var ss, comp float64
	for i := range d.sums {
		e := d.sums[i] - theta*d.rows[i] // m_u·(D_u − θ̂)
		ss += e * e
		comp += e
	}
	meanRows := d.totalRows / float64(n)
	return (ss - comp*comp/float64(n)) / float64(n-1) / (meanRows * meanRows), nil
}

package stats

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// DefaultAlpha is the significance level Compare uses when
// CompareOptions.Alpha is zero.
const DefaultAlpha = 0.05

// comparePower is the power at which Compare sizes the sample it would take
// to detect the observed gap.
const comparePower = 0.8

// CompareOptions configures Compare. The zero value asks for alpha 0.05, a
// 95 % interval, 2000 resamples and sign flips, and seed 0.
type CompareOptions struct {
	// Alpha is the significance level, in (0, 1). Zero means DefaultAlpha.
	Alpha float64
	// Confidence is the coverage of the interval, in (0, 1). Zero means
	// DefaultConfidence.
	Confidence float64
	// Resamples is the number of bootstrap resamples, and of random sign
	// flips. Zero means DefaultResamples.
	Resamples int
	// Seed selects the random streams of both the bootstrap and the
	// randomisation test; the result is the same, bit for bit, on any
	// number of cores.
	Seed uint64

	// LeftName, RightName and Metric only label the verdict sentence:
	// "left" and "right" when empty; an empty Metric is left out.
	LeftName, RightName, Metric string
}

// Interval is an estimate with a confidence interval [Low, High].
type Interval struct {
	Estimate   float64 `json:"estimate"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
}

// ExcludesZero reports whether zero lies outside the interval: Low > 0 or
// High < 0. An interval with a bound at exactly zero does not exclude it.
func (iv Interval) ExcludesZero() bool { return iv.Low > 0 || iv.High < 0 }

// Side names one side of a comparison. The zero value, Neither, means no
// side; it is marshalled to JSON as null.
type Side string

const (
	Neither Side = ""
	Left    Side = "left"
	Right   Side = "right"
)

// MarshalJSON writes Neither as null and the others as strings.
func (s Side) MarshalJSON() ([]byte, error) {
	if s == Neither {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}

// UnmarshalJSON reads null as Neither.
func (s *Side) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = Neither
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Side(v)
	return nil
}

// Comparison is the outcome of Compare: whether one side's mean score is
// distinguishably higher, with the evidence and a sentence saying so.
type Comparison struct {
	// N is the number of paired ids.
	N         int     `json:"n"`
	LeftMean  float64 `json:"left_mean"`
	RightMean float64 `json:"right_mean"`
	// Difference is the mean difference left − right with its paired
	// bootstrap percentile interval.
	Difference Interval `json:"difference"`
	// PValue is the paired sign-flip randomisation test's, never 0.
	PValue float64 `json:"p_value"`
	Alpha  float64 `json:"alpha"`
	// Distinguishable is Decide(PValue, Alpha, Difference): PValue < Alpha
	// and Difference excludes zero.
	Distinguishable bool `json:"distinguishable"`
	// Winner is the side with the higher mean when Distinguishable, and
	// Neither (null) otherwise: a higher mean alone is not a win.
	Winner Side `json:"winner"`
	// Wins, Losses and Ties count the ids where left's score is above,
	// below and equal to right's. They describe; they test nothing.
	Wins   int `json:"wins"`
	Losses int `json:"losses"`
	Ties   int `json:"ties"`
	// NRequired is the number of units a test at Alpha would need to
	// detect the observed gap with 80 % power (SampleSize). It is nil when
	// the means are equal, since no sample size separates equal means, and
	// when the gap is so small that the count passes SampleSize's limit.
	NRequired *int `json:"n_required"`
	// Verdict says all of the above in a sentence.
	Verdict string `json:"verdict"`
}

// Compare decides whether two sets of per-unit scores, keyed by unit id
// (a user, a query), have distinguishable means. It pairs the scores by
// id, using only ids present in both maps, and runs two paired analyses of
// d = left − right on the pairs, in order of id:
//
//   - PairedBootstrap's percentile interval for the mean difference, and
//   - Randomization's sign-flip p-value,
//
// both with Resamples replicates and Seed. The difference is
// distinguishable only when both agree, p < alpha and the interval
// excludes zero: two tests that answer the same question differently are
// not evidence enough to name a winner. The winner is then the side with
// the higher mean; otherwise there is none, however far apart the means.
//
// NRequired puts a number on what it would take: SampleSize for the
// observed gap at Alpha and 80 % power with its default variance, the worst
// case for scores in [0, 1] (which equals the unpaired test's worst case),
// to read as an order of magnitude. The means count as
// equal, and NRequired is nil, when they differ by no more than
// floating-point error, 1e-12 of the mean absolute scores.
//
// Ids in only one map are ignored; no shared id returns ErrNoOverlap. A
// NaN or ±Inf score of a shared id returns ErrNotFinite naming the id. An
// alpha or confidence outside (0, 1) or negative resamples return
// ErrBadParameter.
func Compare(left, right map[string]float64, opts CompareOptions) (Comparison, error) {
	ids := make([]string, 0, min(len(left), len(right)))
	for id := range left {
		if _, ok := right[id]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return Comparison{}, fmt.Errorf("%w: left has %d ids and right %d, none shared", ErrNoOverlap, len(left), len(right))
	}
	slices.Sort(ids)
	l, r := make([]float64, len(ids)), make([]float64, len(ids))
	for i, id := range ids {
		l[i], r[i] = left[id], right[id]
		if err := finiteScore("left", id, l[i]); err != nil {
			return Comparison{}, err
		}
		if err := finiteScore("right", id, r[i]); err != nil {
			return Comparison{}, err
		}
	}
	return ComparePairs(l, r, opts)
}

// ComparePairs is Compare on scores already paired: left[i] and right[i]
// belong to the same unit. It returns ErrLengths when the slices differ in
// length, ErrTooFew when they are empty and ErrNotFinite for NaN or ±Inf.
func ComparePairs(left, right []float64, opts CompareOptions) (Comparison, error) {
	return CompareUnits(left, right, nil, opts)
}

// CompareUnits is ComparePairs on rows grouped into units: units[i] names
// the unit of row i (several evaluation draws of one user, say), or units is
// nil for one row per unit. The interval comes from the cluster bootstrap and
// the p-value from the sign flip of whole units, so the unit, not the row, is
// the independent observation; the estimate is the row-weighted mean
// difference. N, wins, losses and ties count units, comparing each unit's
// summed scores.
func CompareUnits(left, right []float64, units []string, opts CompareOptions) (Comparison, error) {
	alpha := cmp.Or(opts.Alpha, DefaultAlpha)
	if !(alpha > 0 && alpha < 1) {
		return Comparison{}, fmt.Errorf("%w: alpha must be in (0, 1), got %g", ErrBadParameter, opts.Alpha)
	}
	boot, err := PairedBootstrap(left, right, units, BootstrapOptions{
		Confidence: opts.Confidence, Resamples: opts.Resamples, Seed: opts.Seed, Method: Percentile,
	})
	if err != nil {
		return Comparison{}, err
	}
	perm, err := Randomization(left, right, units, RandomizationOptions{Permutations: boot.Resamples, Seed: opts.Seed})
	if err != nil {
		return Comparison{}, err
	}
	rows := len(left)
	c := Comparison{
		LeftMean:   accurateSum(left) / float64(rows),
		RightMean:  accurateSum(right) / float64(rows),
		Difference: Interval{Estimate: boot.Estimate, Low: boot.Low, High: boot.High, Confidence: boot.Confidence},
		PValue:     perm.PValue,
		Alpha:      alpha,
	}
	unitLeft, unitRight := left, right
	if units != nil {
		unitLeft, unitRight = sumByUnit(left, units), sumByUnit(right, units)
	}
	c.N = len(unitLeft)
	var scale float64
	for i := range unitLeft {
		switch {
		case unitLeft[i] > unitRight[i]:
			c.Wins++
		case unitLeft[i] < unitRight[i]:
			c.Losses++
		default:
			c.Ties++
		}
	}
	for i := range left {
		scale += math.Abs(left[i]) + math.Abs(right[i])
	}
	decision := Decide(c.PValue, alpha, c.Difference)
	c.Distinguishable = decision.Distinguishable
	if c.Distinguishable {
		c.Winner = Left
		if c.Difference.Estimate < 0 {
			c.Winner = Right
		}
	}
	equal := math.Abs(c.Difference.Estimate) <= resampleZeroTol*scale/float64(rows)
	tooSmall := false
	if !equal {
		size, err := SampleSize(SampleSizeOptions{Delta: c.Difference.Estimate, Alpha: alpha, Power: comparePower})
		switch {
		case err == nil:
			c.NRequired = &size.N
		case errors.Is(err, ErrBadParameter):
			tooSmall = true
		default:
			return Comparison{}, err
		}
	}
	c.Verdict = c.sentence(opts, equal, tooSmall)
	return c, nil
}

// sumByUnit sums values per unit, in order of each unit's first row.
func sumByUnit(values []float64, units []string) []float64 {
	index := make(map[string]int)
	var sums []float64
	for i, u := range units {
		k, ok := index[u]
		if !ok {
			k = len(sums)
			index[u] = k
			sums = append(sums, 0)
		}
		sums[k] += values[i]
	}
	return sums
}

// sentence writes the verdict: the gap, its interval, the p-value and n;
// when not distinguishable, which half of Decide's rule failed and the
// sample size it would take.
func (c Comparison) sentence(opts CompareOptions, equal, tooSmall bool) string {
	decision := Decide(c.PValue, c.Alpha, c.Difference)
	leftName, rightName := cmp.Or(opts.LeftName, "left"), cmp.Or(opts.RightName, "right")
	on := ""
	if opts.Metric != "" {
		on = " on " + opts.Metric
	}
	d := c.Difference
	decimals := verdictDecimals(d.Estimate, d.Low, d.High)
	level := strconv.FormatFloat(100*d.Confidence, 'g', 6, 64) + "%"
	p := verdictP(c.PValue, c.Alpha)
	var b strings.Builder
	if decision.Distinguishable {
		winner, loser, wins, losses := leftName, rightName, c.Wins, c.Losses
		gap, low, high := d.Estimate, d.Low, d.High
		if c.Winner == Right {
			winner, loser, wins, losses = rightName, leftName, c.Losses, c.Wins
			gap, low, high = -d.Estimate, -d.High, -d.Low
		}
		fmt.Fprintf(&b, "%s beats %s%s by %s (%s CI %s to %s, p = %s, n = %d): the interval excludes zero and p is below alpha %g. ",
			winner, loser, on, verdictNumber(gap, decimals, false), level,
			verdictNumber(low, decimals, false), verdictNumber(high, decimals, false), p, c.N, c.Alpha)
		fmt.Fprintf(&b, "%s scores higher on %d %s, lower on %d and the same on %d.", winner, wins, units(wins), losses, c.Ties)
		return b.String()
	}
	fmt.Fprintf(&b, "%s and %s are not distinguishable%s (n = %d): the gap of %s (%s − %s) has a %s CI of %s to %s, ",
		leftName, rightName, on, c.N, verdictNumber(d.Estimate, decimals, true), leftName, rightName, level,
		verdictNumber(d.Low, decimals, true), verdictNumber(d.High, decimals, true))
	switch {
	case decision.ExcludesZero: // then p failed
		fmt.Fprintf(&b, "which excludes zero, but p = %s is not below alpha %g. ", p, c.Alpha)
	case decision.PBelowAlpha:
		fmt.Fprintf(&b, "which includes zero, although p = %s is below alpha %g. ", p, c.Alpha)
	default:
		fmt.Fprintf(&b, "which includes zero, and p = %s is not below alpha %g. ", p, c.Alpha)
	}
	switch {
	case equal:
		b.WriteString("The means are equal, so no number of units would separate them.")
	case tooSmall:
		b.WriteString("A gap this small would take more than 2147483647 units to detect with 80% power.")
	default:
		fmt.Fprintf(&b, "Detecting a gap this size with 80%% power would take about %d %s (a worst-case, unpaired estimate: an order of magnitude, not a count).",
			*c.NRequired, units(*c.NRequired))
	}
	return b.String()
}

func units(n int) string {
	if n == 1 {
		return "unit"
	}
	return "units"
}

// finiteScore returns ErrNotFinite naming the side and id of a NaN or ±Inf
// score.
func finiteScore(side, id string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s score of id %q is %v", ErrNotFinite, side, id, v)
	}
	return nil
}

// verdictDecimals returns the number of decimals that shows the largest of
// xs with at least three significant digits, and at least 3.
func verdictDecimals(xs ...float64) int {
	m := 0.0
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	if m == 0 {
		return 3
	}
	return min(max(3, 2-int(math.Floor(math.Log10(m)))), 15)
}

// verdictNumber formats x with decimals decimals, and more when that would
// print a nonzero x as zero, so that an interval bound never reads as zero
// on the wrong side. With signed, positive numbers get a plus sign.
func verdictNumber(x float64, decimals int, signed bool) string {
	if x == 0 {
		return strconv.FormatFloat(0, 'f', decimals, 64)
	}
	for decimals < 17 {
		if v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', decimals, 64), 64); v != 0 {
			break
		}
		decimals++
	}
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if signed && x > 0 {
		s = "+" + s
	}
	return s
}

// verdictP formats a p-value with three decimals, or one significant digit
// below 0.001, and more digits when rounding would put it on the other side
// of alpha.
func verdictP(p, alpha float64) string {
	format := func(digits int) string {
		if p < 0.001 {
			return strconv.FormatFloat(p, 'g', digits-2, 64)
		}
		return strconv.FormatFloat(p, 'f', digits, 64)
	}
	digits := 3
	for ; digits < 17; digits++ {
		if v, _ := strconv.ParseFloat(format(digits), 64); (v < alpha) == (p < alpha) {
			break
		}
	}
	return format(digits)
}

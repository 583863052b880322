package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// ZeroMethod says how the Wilcoxon signed-rank test treats zero differences.
type ZeroMethod string

// The zero methods, named as scipy.stats.wilcoxon names them.
const (
	// ZeroWilcox drops zero differences before ranking (Wilcoxon 1945).
	ZeroWilcox ZeroMethod = "wilcox"
	// ZeroPratt ranks zero differences with the others, then leaves their
	// ranks out of both sums (Pratt 1959). More conservative.
	ZeroPratt ZeroMethod = "pratt"
	// ZeroSplit ranks zero differences with the others and adds half of
	// their ranks to each sum.
	ZeroSplit ZeroMethod = "zsplit"
)

// WilcoxonMode says how the Wilcoxon p-value is computed.
type WilcoxonMode string

// The Wilcoxon modes.
const (
	WilcoxonAuto   WilcoxonMode = "auto"
	WilcoxonExact  WilcoxonMode = "exact"
	WilcoxonApprox WilcoxonMode = "approx"
)

// wilcoxonExactMax is the largest number of differences Wilcoxon will run
// in exact mode: the distribution has up to n(n+1)+1 points and takes
// O(n³) time to build.
const wilcoxonExactMax = 1000

// WilcoxonOptions configures Wilcoxon. The zero value is scipy's default:
// zero method wilcox, mode auto, no continuity correction.
type WilcoxonOptions struct {
	// ZeroMethod is wilcox, pratt or zsplit; empty means wilcox.
	ZeroMethod ZeroMethod `req:"zero_method" default:"wilcox" arg:"METHOD" help:"zero differences: wilcox (drop), pratt or zsplit"`
	// Mode is auto, exact or approx; empty means auto.
	Mode WilcoxonMode `req:"mode" default:"auto" arg:"MODE" help:"auto, exact or approx"`
	// Correction applies a continuity correction of 0.5 towards the mean
	// to the statistic in approx mode. It has no effect in exact mode.
	Correction bool `req:"correction" help:"continuity correction of the normal approximation"`
}

// WilcoxonResult is the outcome of Wilcoxon. Z is set in approx mode only
// and is null in JSON otherwise. Mode is the mode actually used: exact or
// approx, never auto.
type WilcoxonResult struct {
	N         int          `json:"n"`
	WPlus     float64      `json:"w_plus"`
	WMinus    float64      `json:"w_minus"`
	Statistic float64      `json:"statistic"`
	Z         *float64     `json:"z"`
	PValue    float64      `json:"p_value"`
	Mode      WilcoxonMode `json:"mode"`
	Notes     []Note       `json:"notes,omitempty"`
}

// Wilcoxon runs the two-sided Wilcoxon signed-rank test of whether the
// differences d_i = left_i − right_i are symmetric about zero.
//
// The |d_i| are ranked from 1 (smallest) with ties given their average
// rank; W+ and W− sum the ranks of the positive and negative differences,
// and the statistic is min(W+, W−). Zero differences follow ZeroMethod. N is
// the number of differences ranked: without zeros under wilcox, with them
// under pratt and zsplit.
//
// Exact mode computes the permutation distribution of W+ over all 2^m sign
// assignments of the m non-zero differences, given their ranks, and returns
// p = min(1, 2 · min(P(W+ ≤ w), P(W+ ≥ w))). Without ties or zeros this is
// the classical exact null distribution and matches scipy. With ties (or
// zeros under pratt and zsplit) it is the exact distribution conditional on
// the tied ranks. scipy 1.10 instead truncates a tied W+ to an integer and
// reads the untied table, which is wrong, and switches to approx whenever
// there is a zero; R's wilcox.test falls back to the normal approximation.
// Exact mode accepts at most 1000 differences.
//
// Approx mode uses the normal approximation exactly as scipy 1.10 does:
//
//	μ = N(N+1)/4,  σ² = [N(N+1)(2N+1) − ½ Σ t(t²−1)] / 24
//	z = (min(W+, W−) − μ − c) / σ,  p = 2 · Φ(−|z|)
//
// where the sum runs over groups of t tied ranks, c = ½·sign(statistic − μ)
// with Correction and 0 otherwise, and under pratt μ and σ² lose the
// n₀(n₀+1)/4 and n₀(n₀+1)(2n₀+1)/24 of the n₀ zero ranks (Cureton 1967).
//
// Auto mode chooses exact when there are at most 50 differences, no zero
// and no tie among the |d_i|, and approx otherwise. scipy 1.10's auto also
// chooses exact for n ≤ 50 and approx when there is a zero, but it keeps
// exact when there are ties, where its answer is wrong (see above).
//
// Edge cases:
//   - The smallest exact two-sided p for n differences is 2/2^n: with 5
//     differences all of one sign it is 0.0625, so 5 folds can never reach
//     0.05.
//   - Every difference zero: scipy raises an error under wilcox and pratt.
//     Wilcoxon returns W+ = W− = 0 (or half the rank sum each under zsplit)
//     and p = 1 with a note: the two sides never differ.
//   - No pairs returns ErrTooFew. Fewer than 10 differences in approx mode
//     add a note that the approximation is rough, where scipy warns.
//
// Inputs of different lengths return ErrLengths, NaN or ±Inf ErrNotFinite,
// an unknown zero method or mode, or exact mode with more than 1000
// differences, ErrBadParameter.
func Wilcoxon(left, right []float64, opts WilcoxonOptions) (WilcoxonResult, error) {
	d, err := pairedDifferencesOf(left, right)
	if err != nil {
		return WilcoxonResult{}, err
	}
	return WilcoxonRanks(SignedRanksOf(d), opts)
}

// SignedRanks are a signed-rank test's differences grouped by magnitude:
// Zeros counts the differences equal to zero, and Groups holds the others'
// magnitudes in increasing order, each group counting its positive and
// negative differences of that magnitude. That is all the test reads, and
// a database can group differences where they are stored.
type SignedRanks struct {
	Zeros  int64
	Groups []SignedRankGroup
}

// SignedRankGroup counts the positive and negative differences of one
// magnitude.
type SignedRankGroup struct {
	Pos, Neg int64
}

// SignedRanksOf groups the differences d.
func SignedRanksOf(d []float64) SignedRanks {
	var r SignedRanks
	nonzero := make([]float64, 0, len(d))
	for _, v := range d {
		if v == 0 {
			r.Zeros++
		} else {
			nonzero = append(nonzero, v)
		}
	}
	sort.Slice(nonzero, func(a, b int) bool { return math.Abs(nonzero[a]) < math.Abs(nonzero[b]) })
	for i := 0; i < len(nonzero); {
		var g SignedRankGroup
		j := i
		for ; j < len(nonzero) && math.Abs(nonzero[j]) == math.Abs(nonzero[i]); j++ {
			if nonzero[j] > 0 {
				g.Pos++
			} else {
				g.Neg++
			}
		}
		r.Groups = append(r.Groups, g)
		i = j
	}
	return r
}

// WilcoxonRanks is Wilcoxon on differences already grouped by magnitude,
// with the same options, result and errors.
func WilcoxonRanks(r SignedRanks, opts WilcoxonOptions) (WilcoxonResult, error) {
	zm, mode := cmp.Or(opts.ZeroMethod, ZeroWilcox), cmp.Or(opts.Mode, WilcoxonAuto)
	if zm != ZeroWilcox && zm != ZeroPratt && zm != ZeroSplit {
		return WilcoxonResult{}, fmt.Errorf("%w: zero method must be wilcox, pratt or zsplit, got %q", ErrBadParameter, zm)
	}
	if mode != WilcoxonAuto && mode != WilcoxonExact && mode != WilcoxonApprox {
		return WilcoxonResult{}, fmt.Errorf("%w: Wilcoxon mode must be auto, exact or approx, got %q", ErrBadParameter, mode)
	}
	total := r.Zeros
	for _, g := range r.Groups {
		if g.Pos < 0 || g.Neg < 0 || g.Pos+g.Neg == 0 {
			return WilcoxonResult{}, fmt.Errorf("%w: a group of differences counts %d positive and %d negative", ErrBadParameter, g.Pos, g.Neg)
		}
		total += g.Pos + g.Neg
	}
	if r.Zeros < 0 || total == 0 {
		return WilcoxonResult{}, fmt.Errorf("%w: the Wilcoxon signed-rank test needs at least 1 pair, got 0", ErrTooFew)
	}
	return wilcoxonRanks(r, zm, mode, opts.Correction)
}

// rankGroup is one magnitude's differences with their average rank.
type rankGroup struct {
	pos, neg, zero int64
	rank           float64
}

func wilcoxonRanks(r SignedRanks, zm ZeroMethod, mode WilcoxonMode, correction bool) (WilcoxonResult, error) {
	nZero := int(r.Zeros)
	var notes []Note
	// The ranked magnitudes in increasing order: the zeros first unless
	// the zero method drops them.
	groups := make([]rankGroup, 0, len(r.Groups)+1)
	if nZero > 0 && zm != ZeroWilcox {
		groups = append(groups, rankGroup{zero: r.Zeros})
	}
	if zm == ZeroWilcox && nZero > 0 {
		notes = append(notes, Note{Code: NoteZerosDropped, Value: float64(nZero)})
	}
	for _, g := range r.Groups {
		groups = append(groups, rankGroup{pos: g.Pos, neg: g.Neg})
	}
	n, nPairs := 0, nZero
	tied := false
	for i := range groups {
		g := &groups[i]
		t := int(g.pos + g.neg + g.zero)
		g.rank = float64(2*n+t+1) / 2 // average of ranks n+1 … n+t
		n += t
		tied = tied || t > 1
		nPairs += int(g.pos + g.neg)
	}
	var wPlus, wMinus, rZero float64
	for _, g := range groups {
		wPlus += float64(g.pos) * g.rank
		wMinus += float64(g.neg) * g.rank
		rZero += float64(g.zero) * g.rank
	}
	if zm == ZeroSplit {
		wPlus += rZero / 2
		wMinus += rZero / 2
	}
	res := WilcoxonResult{N: n, WPlus: wPlus, WMinus: wMinus, Statistic: math.Min(wPlus, wMinus)}

	if mode == WilcoxonAuto {
		switch {
		case n > 50:
			mode = WilcoxonApprox
			notes = append(notes, Note{Code: NoteApproxManyPairs})
		case nZero > 0:
			mode = WilcoxonApprox
			notes = append(notes, Note{Code: NoteApproxZeros})
		case tied:
			mode = WilcoxonApprox
			notes = append(notes, Note{Code: NoteApproxTies})
		default:
			mode = WilcoxonExact
		}
	}
	res.Mode = mode

	if nZero == nPairs {
		res.PValue = 1
		if mode == WilcoxonApprox {
			z := 0.0
			res.Z = &z
		}
		res.Notes = append(notes, Note{Code: NoteAllDifferencesZero})
		return res, nil
	}

	if mode == WilcoxonExact {
		if n > wilcoxonExactMax {
			return WilcoxonResult{}, fmt.Errorf("%w: exact mode supports at most %d differences, got %d; use approx", ErrBadParameter, wilcoxonExactMax, n)
		}
		if tied || (nZero > 0 && zm != ZeroWilcox) {
			notes = append(notes, Note{Code: NoteExactWithTies})
		}
		res.PValue = wilcoxonExactP(groups)
		res.Notes = notes
		return res, nil
	}

	// Normal approximation, as scipy 1.10.
	count := float64(n)
	mn := count * (count + 1) / 4
	se2 := count * (count + 1) * (2*count + 1)
	var ties float64
	for _, g := range groups {
		t := float64(g.pos + g.neg + g.zero)
		if zm == ZeroPratt {
			t = float64(g.pos + g.neg)
		}
		ties += t * (t*t - 1)
	}
	if zm == ZeroPratt && nZero > 0 {
		z0 := float64(nZero)
		mn -= z0 * (z0 + 1) / 4
		se2 -= z0 * (z0 + 1) * (2*z0 + 1)
	}
	se2 -= 0.5 * ties
	se := math.Sqrt(se2 / 24)
	corr := 0.0
	if correction {
		corr = 0.5 * signOf(res.Statistic-mn)
	}
	z := (res.Statistic - mn - corr) / se
	res.Z = &z
	res.PValue = math.Min(1, 2*normalUpperP(math.Abs(z)))
	if n < 10 {
		notes = append(notes, Note{Code: NoteApproxFewPairs, Value: float64(n)})
	}
	res.Notes = notes
	return res, nil
}

// wilcoxonExactP returns the exact two-sided p-value of the signed-rank
// statistic: the sum of the ranks of positive differences is compared with
// its distribution over all sign assignments of the non-zero differences.
// Ranks are multiples of ½, so the distribution is built over twice the
// ranks, which are integers.
func wilcoxonExactP(groups []rankGroup) float64 {
	scale := 1.0
	for _, g := range groups {
		if g.pos+g.neg > 0 && g.rank != math.Trunc(g.rank) {
			scale = 2
			break
		}
	}
	var weights []int
	total, observed := 0, 0
	for _, g := range groups {
		w := int(math.Round(g.rank * scale))
		for range g.pos + g.neg {
			weights = append(weights, w)
			total += w
		}
		observed += int(g.pos) * w
	}
	// dist[s] = P(sum of the weights given a + sign = s) under the null
	// that each sign is + with probability ½, built one weight at a time.
	// Halving is exact in floating point, so for n ≤ 52 every entry is the
	// exact count divided by 2^n.
	dist := make([]float64, total+1)
	dist[0] = 1
	top := 0
	for _, w := range weights {
		top += w
		for s := top; s >= 0; s-- {
			v := dist[s] / 2
			if s >= w {
				v += dist[s-w] / 2
			}
			dist[s] = v
		}
	}
	var lower, upper float64
	for s := 0; s <= observed; s++ {
		lower += dist[s]
	}
	for s := observed; s <= total; s++ {
		upper += dist[s]
	}
	return math.Min(1, 2*math.Min(lower, upper))
}

// averageRanks returns the ranks of x in increasing order, from 1, with
// tied values given the average of the ranks they span (scipy's rankdata
// with method "average").
func averageRanks(x []float64) []float64 {
	// Ties share one rank whatever their order, so an unstable sort of
	// (value, index) pairs serves: a million values in a tenth of the time
	// of a stable sort of indices.
	type ranked struct {
		v float64
		i int
	}
	idx := make([]ranked, len(x))
	for i, v := range x {
		idx[i] = ranked{v, i}
	}
	slices.SortFunc(idx, func(a, b ranked) int { return cmp.Compare(a.v, b.v) })
	ranks := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j].v == idx[i].v {
			j++
		}
		r := float64(i+j+1) / 2 // average of ranks i+1 … j
		for k := i; k < j; k++ {
			ranks[idx[k].i] = r
		}
		i = j
	}
	return ranks
}

// signOf returns −1, 0 or 1 as x is negative, zero or positive.
func signOf(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

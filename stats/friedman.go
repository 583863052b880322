package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mathext"
)

// FriedmanOptions configures Friedman. The zero value names the columns
// "1" … "K", tests at alpha 0.05 and uses the first column as control.
type FriedmanOptions struct {
	// Names labels the K columns; nil means "1" … "K".
	Names []string
	// Alpha is the level of the Nemenyi critical difference and of the
	// Holm rejections, in (0, 1). Zero means 0.05.
	Alpha float64 `req:"alpha" default:"0.05" arg:"LEVEL" help:"significance level"`
	// Control names the column the others are compared with in Holm; empty
	// means the first column.
	Control string `req:"control" arg:"NAME" help:"control model for the Holm comparisons (default: the first)"`
}

// FriedmanResult is the outcome of Friedman. AvgRanks and Names follow the
// columns; Holm has one entry per column other than the control, in column
// order.
type FriedmanResult struct {
	NBlocks        int              `json:"n_blocks"`
	K              int              `json:"k"`
	Names          []string         `json:"names"`
	AvgRanks       []float64        `json:"avg_ranks"`
	Chi2           float64          `json:"chi2"`
	DF             int              `json:"df"`
	PValue         float64          `json:"p_value"`
	ImanDavenportF float64          `json:"iman_davenport_f"`
	ImanDavenportP float64          `json:"iman_davenport_p"`
	CD             float64          `json:"cd"`
	Holm           []HolmComparison `json:"holm"`
	Notes          []Note           `json:"notes,omitempty"`
}

// HolmComparison is one column compared with the control in Friedman's
// post-hoc: its z statistic, unadjusted and Holm-adjusted p-values, and
// whether the adjusted p-value is below alpha.
type HolmComparison struct {
	Name      string  `json:"name"`
	Z         float64 `json:"z"`
	PValue    float64 `json:"p_value"`
	PAdjusted float64 `json:"p_adjusted"`
	Rejected  bool    `json:"rejected"`
}

// Friedman runs the Friedman test of whether K models (columns of scores)
// perform alike over N blocks (rows: datasets, folds or users), with the
// post-hoc analysis Demšar (2006) recommends.
//
// Within each block the models are ranked, 1 for the highest score, ties
// sharing their average rank; R̄_j is model j's average rank. With t the
// sizes of the groups of ties within blocks,
//
//	χ²_F = 12N / (K(K+1)) · Σ_j (R̄_j − (K+1)/2)²  /  (1 − Σ t(t²−1) / (N K (K²−1)))
//	df = K − 1,  p = P(χ²_df ≥ χ²_F)
//
// which is scipy.stats.friedmanchisquare (tie-corrected). Iman and
// Davenport's (1980) less conservative F statistic is
//
//	F = (N − 1) χ²_F / (N(K − 1) − χ²_F)  on K − 1 and (K − 1)(N − 1) df.
//
// Nemenyi's critical difference, the gap in average rank two models need to
// differ at level alpha, is
//
//	CD = q_α · √(K(K+1) / (6N)),  q_α = Q_{1−α}(K, ∞) / √2
//
// where Q is the studentized range distribution for K means with infinite
// degrees of freedom: P(range ≤ q) = K ∫ φ(z) [Φ(z+q) − Φ(z)]^{K−1} dz,
// computed here by Gauss–Legendre quadrature and inverted by bisection to
// machine precision. Demšar's table (2.343 for K = 3, 3.164 for K = 10 at
// 0.05) is this q_α to three decimals.
//
// Holm compares each column j with the control c by
// z_j = (R̄_c − R̄_j) / √(K(K+1)/(6N)), positive when column j ranks better
// than the control, p_j = 2Φ(−|z_j|), adjusted with Holm's method over the
// K − 1 comparisons; a comparison is rejected when its adjusted p-value is
// below alpha.
//
// Edge cases:
//   - Every block entirely tied (all models score alike everywhere): the tie
//     correction is 0/0 and scipy returns NaN. Friedman returns χ²_F = 0,
//     p = 1, F = 0, F's p = 1 and Holm z = 0, p = 1, with a note: the
//     models are indistinguishable.
//   - Every block ranks the models identically: χ²_F = N(K − 1), its
//     maximum, and F's denominator is zero; F = +Inf and its p = 0, with a
//     note.
//   - scipy requires K ≥ 3; Friedman accepts K = 2 (a sign test on ranks).
//     Fewer than 2 columns or 2 blocks returns ErrTooFew.
//
// Rows of different lengths or a Names slice that is not K long return
// ErrLengths; NaN or ±Inf ErrNotFinite; an alpha outside (0, 1), duplicate
// names or a control that names no column ErrBadParameter.
func Friedman(scores [][]float64, opts FriedmanOptions) (FriedmanResult, error) {
	n := len(scores)
	if n < 2 {
		return FriedmanResult{}, fmt.Errorf("%w: the Friedman test needs at least 2 blocks (rows), got %d", ErrTooFew, n)
	}
	k := len(scores[0])
	if k < 2 {
		return FriedmanResult{}, fmt.Errorf("%w: the Friedman test needs at least 2 models (columns), got %d", ErrTooFew, k)
	}
	for i, row := range scores {
		if len(row) != k {
			return FriedmanResult{}, fmt.Errorf("%w: scores row %d has %d values, row 0 has %d", ErrLengths, i, len(row), k)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return FriedmanResult{}, fmt.Errorf("%w: scores[%d][%d] is %v", ErrNotFinite, i, j, v)
			}
		}
	}
	return FriedmanOfSums(RankSumsOf(scores), opts)
}

// RankSums are what the Friedman test reads from its blocks: their
// number, each column's sum of twice its ranks (ranks are whole or half
// numbers, 1 for the highest score, ties sharing their average), the sum
// over blocks of Σ t(t²−1) over the groups of t tied scores, and whether
// every block ranks the columns alike. Sums of any split of the blocks
// add up to the sums of all (with SameOrder true only if every part's is,
// and the parts' ranks agree): a distributed database ranks each shard's
// blocks and adds them.
type RankSums struct {
	Blocks    int64
	Twice     []int64
	Ties      int64
	SameOrder bool
}

// RankSumsOf ranks the blocks of scores (rows, each of the same K finite
// scores).
func RankSumsOf(scores [][]float64) RankSums {
	s := RankSums{Blocks: int64(len(scores)), SameOrder: true}
	if len(scores) == 0 {
		return s
	}
	k := len(scores[0])
	s.Twice = make([]int64, k)
	var first []int64
	twice := make([]int64, k)
	order := make([]int, k)
	for i, row := range scores {
		// 2·rank = 2·(1 + #higher) + #tied others = 1 + 2·#higher + #equal.
		if k <= 16 {
			for j, v := range row {
				var higher, equal int64
				for _, w := range row {
					switch {
					case w > v:
						higher++
					case w == v:
						equal++
					}
				}
				twice[j] = 1 + 2*higher + equal
				s.Ties += equal*equal - 1 // Σ over a group of t: t·(t² − 1)
			}
		} else {
			for j := range order {
				order[j] = j
			}
			slices.SortFunc(order, func(a, b int) int { return cmp.Compare(row[b], row[a]) })
			for p := 0; p < k; {
				q := p + 1
				for q < k && row[order[q]] == row[order[p]] {
					q++
				}
				t := int64(q - p)
				for _, j := range order[p:q] {
					twice[j] = 1 + 2*int64(p) + t
				}
				s.Ties += t * (t*t - 1)
				p = q
			}
		}
		for j := range twice {
			s.Twice[j] += twice[j]
		}
		if i == 0 {
			first = append([]int64(nil), twice...)
		} else if s.SameOrder {
			for j := range twice {
				if twice[j] != first[j] {
					s.SameOrder = false
				}
			}
		}
	}
	return s
}

// FriedmanOfSums is Friedman of the blocks whose rank sums s are: the same
// result, bit for bit, as Friedman of the scores they came from. Errors
// as Friedman's, and ErrLengths when s has no rank sum per name.
func FriedmanOfSums(s RankSums, opts FriedmanOptions) (FriedmanResult, error) {
	alpha := opts.Alpha
	if alpha == 0 {
		alpha = 0.05
	}
	if !(alpha > 0 && alpha < 1) {
		return FriedmanResult{}, fmt.Errorf("%w: alpha must be in (0, 1), got %g", ErrBadParameter, opts.Alpha)
	}
	n := int(s.Blocks)
	if n < 2 {
		return FriedmanResult{}, fmt.Errorf("%w: the Friedman test needs at least 2 blocks (rows), got %d", ErrTooFew, n)
	}
	k := len(s.Twice)
	if k < 2 {
		return FriedmanResult{}, fmt.Errorf("%w: the Friedman test needs at least 2 models (columns), got %d", ErrTooFew, k)
	}
	names := opts.Names
	if names == nil {
		names = make([]string, k)
		for j := range names {
			names[j] = strconv.Itoa(j + 1)
		}
	} else if len(names) != k {
		return FriedmanResult{}, fmt.Errorf("%w: %d names for %d columns of scores", ErrLengths, len(names), k)
	}
	control := 0
	seen := make(map[string]bool, k)
	for j, name := range names {
		if seen[name] {
			return FriedmanResult{}, fmt.Errorf("%w: column name %q appears twice", ErrBadParameter, name)
		}
		seen[name] = true
		if opts.Control != "" && name == opts.Control {
			control = j
		}
	}
	if opts.Control != "" && !seen[opts.Control] {
		return FriedmanResult{}, fmt.Errorf("%w: control %q names no column", ErrBadParameter, opts.Control)
	}

	nf, kf := float64(n), float64(k)
	avg := make([]float64, k)
	for j, t := range s.Twice {
		avg[j] = float64(t) / 2 / nf // Σ ranks is exact: a whole or half number
	}
	ties, sameOrder := float64(s.Ties), s.SameOrder
	res := FriedmanResult{
		NBlocks:  n,
		K:        k,
		Names:    append([]string(nil), names...),
		AvgRanks: avg,
		DF:       k - 1,
		CD:       nemenyiQ(alpha, k) * math.Sqrt(kf*(kf+1)/(6*nf)),
	}
	se := math.Sqrt(kf * (kf + 1) / (6 * nf))

	correction := 1 - ties/(nf*kf*(kf*kf-1))
	allTied := ties == nf*kf*(kf*kf-1)
	if allTied {
		res.Chi2, res.PValue = 0, 1
		res.ImanDavenportF, res.ImanDavenportP = 0, 1
		res.Notes = append(res.Notes, Note{Code: NoteAllBlocksTied})
	} else {
		var ss float64
		for _, r := range avg {
			dev := r - (kf+1)/2
			ss += dev * dev
		}
		res.Chi2 = 12 * nf / (kf * (kf + 1)) * ss / correction
		res.PValue = mathext.GammaIncRegComp((kf-1)/2, res.Chi2/2)
		denom := nf*(kf-1) - res.Chi2
		if sameOrder || denom <= 0 {
			res.ImanDavenportF, res.ImanDavenportP = math.Inf(1), 0
			res.Notes = append(res.Notes, Note{Code: NoteIdenticalRankings})
		} else {
			d1, d2 := kf-1, (kf-1)*(nf-1)
			f := (nf - 1) * res.Chi2 / denom
			res.ImanDavenportF = f
			res.ImanDavenportP = mathext.RegIncBeta(d2/2, d1/2, d2/(d2+d1*f))
		}
	}

	var pv []float64
	for j := range k {
		if j == control {
			continue
		}
		z := (avg[control] - avg[j]) / se
		res.Holm = append(res.Holm, HolmComparison{Name: names[j], Z: z, PValue: math.Min(1, 2*normalUpperP(math.Abs(z)))})
		pv = append(pv, res.Holm[len(res.Holm)-1].PValue)
	}
	adj := adjustPValues(pv, AdjustHolm)
	for i := range res.Holm {
		res.Holm[i].PAdjusted = adj[i]
		res.Holm[i].Rejected = adj[i] < alpha
	}
	return res, nil
}

// nemenyiQ returns q_α = Q_{1−α}(k, ∞)/√2, the Nemenyi critical value for k
// models, by bisection on the studentized range distribution function.
func nemenyiQ(alpha float64, k int) float64 {
	lo, hi := 0.0, 1.0
	for studentizedRangeCDF(hi, k) < 1-alpha {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if studentizedRangeCDF(mid, k) < 1-alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2 / math.Sqrt2
}

// studentizedRangeCDF returns P(R ≤ q) for the range R of k independent
// standard normal variables (the studentized range with infinite degrees of
// freedom):
//
//	P(R ≤ q) = k ∫ φ(z) [Φ(z+q) − Φ(z)]^{k−1} dz
//
// The integrand is smooth and negligible outside [−q−10, 10] (φ(10) is
// about 8e-23), where 400-point Gauss–Legendre quadrature integrates it to
// within rounding. Φ(z+q) − Φ(z) is taken from upper tails for z > 0 so
// that it keeps its precision where both terms are near 1.
func studentizedRangeCDF(q float64, k int) float64 {
	if q <= 0 {
		return 0
	}
	integrand := func(z float64) float64 {
		var inner float64
		if z > 0 {
			inner = normalUpperP(z) - normalUpperP(z+q)
		} else {
			inner = normalUpperP(-z-q) - normalUpperP(-z)
		}
		phi := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		return phi * math.Pow(inner, float64(k-1))
	}
	return float64(k) * quad.Fixed(integrand, -q-10, 10, 400, quad.Legendre{}, 0)
}

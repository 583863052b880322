package stats

import (
	"math"
	"math/big"
	"math/bits"
)

// Exact sums make a statistic independent of the order its terms are
// added in: the same units summed on one server, or shard by shard on the
// workers of a distributed database and added on its coordinator, give the
// same number bit for bit. verdict sums differences of per-unit values in
// fixed point, as integers D = d·2^Scale, and rounds only the final
// quotients (a mean, a variance, a replicate's estimate) to float64.
//
// The common case is Q64, Scale 64: every value verdict stores is a
// float32, and one of magnitude below 2²⁴ (FixedLimit) whose lowest bit is
// at least 2⁻⁶⁴ (every normal float32 from 4.6·10⁻¹³ up) is an integer
// times 2⁻⁶⁴. Such a value v is the triple
//
//	v·2⁶⁴ = hi·2⁶⁴ + mid·2³² + low,  hi = ⌊v⌋, 0 ≤ mid, low < 2³²
//
// which SQL computes with float8 floor and subtraction, every step exact,
// and sums as bigint (see store's summary queries). A set of units with
// any value outside (a per-unit sum of several draws, a value below
// 4.6·10⁻¹³) is summed at WideScale instead, where every float64 is an
// integer.

// FixedScale is the scale of Q64 fixed point: values are integers times
// 2⁻⁶⁴.
const FixedScale = 64

// WideScale is the scale at which every finite float64 is an integer: the
// smallest subnormal is 2⁻¹⁰⁷⁴.
const WideScale = 1074

// FixedLimit bounds the magnitude of a value in Q64: |v| < 2²⁴, so that a
// replicate's sum of weighted differences fits 128 bits for any number of
// units below 2³¹, and SQL's bigint products of a weight and a part never
// overflow.
const FixedLimit = 1 << 24

// int128 is a two's complement 128-bit integer hi·2⁶⁴ + lo.
type int128 struct {
	hi int64
	lo uint64
}

func (a int128) add(b int128) int128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	return int128{a.hi + b.hi + int64(c), lo}
}

func (a int128) neg() int128 {
	lo, c := bits.Add64(^a.lo, 1, 0)
	return int128{^a.hi + int64(c), lo}
}

// shl is a·2^s for s < 128, when that fits.
func (a int128) shl(s uint) int128 {
	switch {
	case s == 0:
		return a
	case s >= 64:
		return int128{int64(a.lo << (s - 64)), 0}
	}
	return int128{a.hi<<s | int64(a.lo>>(64-s)), a.lo << s}
}

// sar is a·2^−s rounded down (an arithmetic shift), for s < 128.
func (a int128) sar(s uint) int128 {
	switch {
	case s == 0:
		return a
	case s >= 64:
		return int128{a.hi >> 63, uint64(a.hi >> (s - 64))}
	}
	return int128{a.hi >> s, a.lo>>s | uint64(a.hi)<<(64-s)}
}

func (a int128) sign() int {
	switch {
	case a.hi < 0:
		return -1
	case a.hi == 0 && a.lo == 0:
		return 0
	}
	return 1
}

func (a int128) big() *big.Int { return a.setBig(new(big.Int), new(big.Int)) }

// setBig sets z to a, using tmp as scratch, and returns z.
func (a int128) setBig(z, tmp *big.Int) *big.Int {
	z.SetInt64(a.hi)
	z.Lsh(z, 64)
	return z.Add(z, tmp.SetUint64(a.lo))
}

// toFixed returns v·2⁶⁴ when v is in Q64: |v| < FixedLimit and v·2⁶⁴ is an
// integer.
func toFixed(v float64) (int128, bool) {
	if !(math.Abs(v) < FixedLimit) {
		return int128{}, false
	}
	// v·2⁶⁴ = ⌊x⌋·2³² + f·2³², x = v·2³² and f its fraction, every step
	// exact: scaling by a power of two is, and x − ⌊x⌋ holds no bit below
	// x's lowest, at most 32 places below the point when v·2⁶⁴ is an
	// integer. (v − ⌊v⌋ would not be: for v = −2⁻⁶⁴ it is 1 − 2⁻⁶⁴, which
	// rounds to 1.)
	x := v * 0x1p32
	fl := math.Floor(x)
	frac := (x - fl) * 0x1p32
	if frac != math.Trunc(frac) {
		return int128{}, false
	}
	h := int64(fl) // |⌊x⌋| < 2⁵⁶
	return int128{h >> 32, uint64(h)<<32 | uint64(frac)}, true
}

// wideInt returns v·2^WideScale as an integer, exactly, for finite v.
func wideInt(v float64) *big.Int {
	f := new(big.Float).SetPrec(0).SetFloat64(v) // exact
	f.SetMantExp(f, WideScale)
	z, _ := f.Int(nil)
	return z
}

// ratio is num·2^−scale / den rounded to the nearest float64, ties to even.
func ratio(num *big.Int, scale uint, den *big.Int) float64 {
	d := new(big.Int).Lsh(den, scale)
	f, _ := new(big.Rat).SetFrac(num, d).Float64()
	return f
}

// ExactMean is the mean of xs rounded once from their exact sum, the same
// whatever their order; NaN when xs is empty or holds NaN or ±Inf.
func ExactMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum int128
	for i, v := range xs {
		f, ok := toFixed(v)
		if !ok {
			return wideMean(xs, i, sum)
		}
		sum = sum.add(f)
	}
	return ratio(sum.big(), FixedScale, big.NewInt(int64(len(xs))))
}

// wideMean is ExactMean at WideScale, with the sum of xs[:i] in Q64
// already made.
func wideMean(xs []float64, i int, fixed int128) float64 {
	sum := fixed.big()
	sum.Lsh(sum, WideScale-FixedScale)
	for _, v := range xs[i:] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.NaN()
		}
		sum.Add(sum, wideInt(v))
	}
	return ratio(sum, WideScale, big.NewInt(int64(len(xs))))
}

// MeanOfSum is the mean of n values whose exact sum is sum·2^−scale,
// rounded once: ExactMean of them. NaN for n < 1.
func MeanOfSum(sum *big.Int, scale uint, n int64) float64 {
	if n < 1 {
		return math.NaN()
	}
	return ratio(sum, scale, big.NewInt(n))
}

// DifferenceSums are Σ (l_i − r_i) and Σ |l_i − r_i| over paired values
// left and right (of equal length), each difference taken and summed
// exactly and the sums rounded once: the same numbers whatever the order
// of the pairs, and the same as a distributed database's sums of the
// differences in Q64 on its workers. NaN when a value is NaN or ±Inf.
func DifferenceSums(left, right []float64) (sum, abs float64) {
	var s, a int128
	for i, l := range left {
		lf, okl := toFixed(l)
		rf, okr := toFixed(right[i])
		if !okl || !okr {
			return wideDifferenceSums(left, right)
		}
		d := lf.add(rf.neg())
		s = s.add(d)
		if d.sign() < 0 {
			d = d.neg()
		}
		a = a.add(d)
	}
	one := big.NewInt(1)
	return ratio(s.big(), FixedScale, one), ratio(a.big(), FixedScale, one)
}

// wideDifferenceSums is DifferenceSums at WideScale.
func wideDifferenceSums(left, right []float64) (sum, abs float64) {
	s, a := new(big.Int), new(big.Int)
	for i, l := range left {
		r := right[i]
		if math.IsNaN(l) || math.IsInf(l, 0) || math.IsNaN(r) || math.IsInf(r, 0) {
			return math.NaN(), math.NaN()
		}
		d := wideInt(l)
		d.Sub(d, wideInt(r))
		s.Add(s, d)
		a.Add(a, d.Abs(d))
	}
	one := big.NewInt(1)
	return ratio(s, WideScale, one), ratio(a, WideScale, one)
}

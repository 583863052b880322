package stats

import "math"

// The smallest p-value a test can give at a given n. A discrete test of
// few units has a floor under its p-value: when the floor is not below
// alpha, no outcome of those units is significant, however far apart the
// two sides, and a sample size computed from the observed variance would
// say otherwise.

// WilcoxonMinP is the smallest two-sided p-value of the exact Wilcoxon
// signed-rank test of n nonzero differences: 2/2ⁿ (every difference of one
// sign), capped at 1. With 5 differences it is 0.0625, so no 5 folds are
// significant at 0.05. Ties do not lower it: every difference of one sign
// is still the only most extreme outcome. It is the floor of exact mode
// only; the normal approximation has none.
func WilcoxonMinP(n int) float64 { return twoSidedFloor(n) }

// McNemarMinP is the smallest two-sided p-value of McNemar's exact test of
// b + c = discordant pairs: 2·½^(b+c) (every discordant pair on one side),
// capped at 1. Fewer than 6 discordant pairs never reach 0.05.
func McNemarMinP(discordant int) float64 { return twoSidedFloor(discordant) }

// SignFlipMinP is the smallest p-value the sign-flip test of Randomization
// and RandomizationUnits can be expected to give on n units whose
// difference is not zero, with B random sign vectors: the exact test's
// floor 2/2ⁿ (the observed signs and their mirror image are the most
// extreme), and never below 1/(B + 1), the Monte Carlo p = (count + 1)/(B
// + 1) with no sign vector as extreme as the observed one. It is the larger
// of the two. A Monte Carlo count can fall a little under its expectation,
// so the test's p can come slightly below 2/2ⁿ by chance; not reliably.
func SignFlipMinP(n, B int) float64 {
	if B < 1 {
		B = DefaultPermutations
	}
	return math.Max(twoSidedFloor(n), 1/float64(B+1))
}

// twoSidedFloor is min(1, 2/2ⁿ), 1 for n ≤ 1.
func twoSidedFloor(n int) float64 {
	if n <= 1 {
		return 1
	}
	return math.Ldexp(1, 1-n)
}

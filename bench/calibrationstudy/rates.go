package main

import (
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// rate is a share k/n with its Clopper–Pearson interval.
type rate struct {
	k, n           int
	est, low, high float64
}

// clopperPearson returns k/n with the exact (Clopper–Pearson 1934)
// binomial interval at level conf: the Beta quantiles
//
//	low  = B⁻¹((1 − conf)/2; k, n − k + 1)   (0 when k = 0)
//	high = B⁻¹((1 + conf)/2; k + 1, n − k)   (1 when k = n)
//
// which cover the true rate with probability at least conf, whatever it
// is. No trials gives NaN bounds.
func clopperPearson(k, n int, conf float64) rate {
	r := rate{k: k, n: n, est: nan(), low: nan(), high: nan()}
	if n == 0 {
		return r
	}
	r.est = float64(k) / float64(n)
	r.low, r.high = 0, 1
	if k > 0 {
		r.low = mathext.InvRegIncBeta(float64(k), float64(n-k+1), (1-conf)/2)
	}
	if k < n {
		r.high = mathext.InvRegIncBeta(float64(k+1), float64(n-k), (1+conf)/2)
	}
	return r
}

// binomialBand returns the range of rejection counts [lo, hi] that a
// method whose true rate is exactly p shows in n trials with probability
// at least conf: lo is the largest count with P(X < lo) ≤ (1 − conf)/2 and
// hi the smallest with P(X > hi) ≤ (1 − conf)/2, for X ~ Binomial(n, p).
// A count outside it is evidence, at level 1 − conf, that the rate is not
// p.
func binomialBand(n int, p, conf float64) (lo, hi int) {
	tail := (1 - conf) / 2
	b := distuv.Binomial{N: float64(n), P: p}
	for lo = 0; lo < n && b.CDF(float64(lo)) <= tail; lo++ {
	}
	for hi = n; hi > 0 && 1-b.CDF(float64(hi-1)) <= tail; hi-- {
	}
	return lo, hi
}

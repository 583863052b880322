package main

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// A marginal is the distribution of one side's per-user metric value,
// given by its quantile function, so that two sides can be coupled through
// a Gaussian copula: a user's value is quantile(Φ(z)) for a standard
// normal latent z, and the latents of the two sides are correlated.
type marginal interface {
	// quantile returns the value at probability u in (0, 1); it is
	// non-decreasing in u, so a higher latent never gives a worse value.
	quantile(u float64) float64
	// mean is the exact mean of the distribution.
	mean() float64
}

// bernoulli is a 0/1 metric such as hit rate: 1 with probability p.
type bernoulli struct{ p float64 }

func (b bernoulli) quantile(u float64) float64 {
	if u > 1-b.p {
		return 1
	}
	return 0
}

func (b bernoulli) mean() float64 { return b.p }

// zeroBeta is an ndcg-like metric: 0 (no relevant item retrieved) with
// probability 1 − nonzero, otherwise Beta(a, b)-distributed. The Beta
// quantile is tabulated at betaTableSize + 1 equally spaced probabilities
// and interpolated linearly; the distribution sampled, and its mean, are
// those of the interpolated quantile function.
type zeroBeta struct {
	nonzero float64
	beta    *betaTable
}

func (z zeroBeta) quantile(u float64) float64 {
	if u <= 1-z.nonzero {
		return 0
	}
	return z.beta.at((u - (1 - z.nonzero)) / z.nonzero)
}

func (z zeroBeta) mean() float64 { return z.nonzero * z.beta.mean }

// betaTableSize is the number of intervals of a tabulated Beta quantile.
const betaTableSize = 4096

// betaTable is a Beta(a, b) quantile function tabulated for fast sampling.
type betaTable struct {
	q    [betaTableSize + 1]float64
	mean float64
}

func newBetaTable(a, b float64) *betaTable {
	t := &betaTable{}
	for k := range t.q {
		t.q[k] = mathext.InvRegIncBeta(a, b, float64(k)/betaTableSize)
	}
	// The mean of a piecewise linear quantile function is the trapezoid
	// rule over its table, exactly.
	for k := range betaTableSize {
		t.mean += (t.q[k] + t.q[k+1]) / 2 / betaTableSize
	}
	return t
}

func (t *betaTable) at(u float64) float64 {
	x := u * betaTableSize
	k := min(int(x), betaTableSize-1)
	f := x - float64(k)
	return t.q[k] + f*(t.q[k+1]-t.q[k])
}

// rankedNDCG is ndcg@10 of a leave-one-out protocol: each user has one
// held-out item, found in the top 10 with probability hit, at rank r with
// probability ranks[r−1] given that it is found, and then scores
// 1/log₂(r + 1); otherwise 0. It takes 11 values only, so that two models
// tie on most users: the heavy-ties shape.
type rankedNDCG struct {
	hit float64
	cum [10]float64 // cumulative rank probabilities, ranks 1..10
}

func newRankedNDCG(hit float64, ranks [10]float64) rankedNDCG {
	r := rankedNDCG{hit: hit}
	var total float64
	for _, p := range ranks {
		total += p
	}
	var acc float64
	for i, p := range ranks {
		acc += p / total
		r.cum[i] = acc
	}
	r.cum[9] = 1
	return r
}

func (r rankedNDCG) quantile(u float64) float64 {
	if u <= 1-r.hit {
		return 0
	}
	// The highest latents get the best ranks.
	w := 1 - (u-(1-r.hit))/r.hit
	for i, c := range r.cum {
		if w <= c {
			return ndcgAtRank(i + 1)
		}
	}
	return ndcgAtRank(10)
}

func (r rankedNDCG) mean() float64 {
	var m, prev float64
	for i, c := range r.cum {
		m += (c - prev) * ndcgAtRank(i+1)
		prev = c
	}
	return r.hit * m
}

// ndcgAtRank is the ndcg of one relevant item found at rank r.
func ndcgAtRank(r int) float64 { return 1 / math.Log2(float64(r)+1) }

// stdNormalCDF is Φ.
func stdNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// correlatedNormals returns two standard normals with correlation rho.
func correlatedNormals(rng *rand.Rand, rho float64) (float64, float64) {
	a, b := rng.NormFloat64(), rng.NormFloat64()
	return a, rho*a + math.Sqrt(1-rho*rho)*b
}

// stored rounds a per-unit value to the single precision verdict stores
// it in (PostgreSQL real).
func stored(x float64) float64 { return float64(float32(x)) }

// family is the truth a configuration simulates.
type family int

const (
	// sameNull: both sides draw from one distribution, so the pair is
	// exchangeable and every test's null hypothesis holds: mean, median
	// and symmetry alike.
	sameNull family = iota
	// meanNull: the sides have equal means but different shapes (one
	// model reaches fewer users but ranks better where it does), the
	// null of a mean comparison. The distribution of the differences is
	// then not symmetric, and tests of medians or of symmetry do not
	// test this null.
	meanNull
	// lift: the left side reaches 10 % more users (its nonzero share is
	// raised by a tenth), a true difference of 10 % of the mean.
	lift
)

func (f family) String() string {
	switch f {
	case sameNull:
		return "same"
	case meanNull:
		return "mean"
	}
	return "lift"
}

// userShape is a kind of per-user metric: its distribution on the
// baseline side, another shape with the same mean (nil where equal means
// force the same distribution, as for 0/1 values), the same shape with
// the 10 % lift, and whether users have several rows.
type userShape struct {
	name, title string
	base, alt   marginal
	lifted      marginal
	clustered   bool
	// binary marks 0/1 values, where McNemar applies.
	binary bool
}

// sides returns the left and right marginals of a family.
func (s userShape) sides(f family) (left, right marginal) {
	switch f {
	case meanNull:
		return s.base, s.alt
	case lift:
		return s.lifted, s.base
	}
	return s.base, s.base
}

// families lists the families the shape is simulated under.
func (s userShape) families() []family {
	if s.alt == nil {
		return []family{sameNull, lift}
	}
	return []family{sameNull, meanNull, lift}
}

// Clustered draws: most users have 1 + Binomial(4, ¼) rows (1 to 5, mean
// 2), heavyShare of them heavyRows; rows of one user share a user effect
// that carries withinUser of the latent variance.
const (
	heavyShare = 0.05
	heavyRows  = 50
	withinUser = 0.5
)

// userShapes are the four data shapes of the per-user study.
func userShapes() []userShape {
	beta23, beta33 := newBetaTable(2, 3), newBetaTable(3, 3)
	uniform := [10]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	var topHeavy [10]float64
	for i := range topHeavy {
		topHeavy[i] = math.Pow(0.5, float64(i))
	}
	ties := newRankedNDCG(0.25, uniform)
	top := newRankedNDCG(1, topHeavy)
	tiesAlt := newRankedNDCG(ties.mean()/top.mean(), topHeavy)
	ndcg := zeroBeta{nonzero: 0.40, beta: beta23}
	// Equal means exactly, with the tabulated Beta means: about 0.32.
	ndcgAlt := zeroBeta{nonzero: ndcg.mean() / beta33.mean, beta: beta33}
	ndcgLift := zeroBeta{nonzero: 0.44, beta: beta23}
	return []userShape{
		{name: "hit", title: "0/1 values (hit rate 0.30)", base: bernoulli{0.30}, lifted: bernoulli{0.33}, binary: true},
		{name: "ndcg", title: "ndcg-like values (60 % zeros, else Beta(2, 3))", base: ndcg, alt: ndcgAlt, lifted: ndcgLift},
		{name: "ties", title: "leave-one-out ndcg@10 (11 values, heavy ties)", base: ties, alt: tiesAlt, lifted: newRankedNDCG(0.275, uniform)},
		{name: "draws", title: "ndcg-like rows, several per user, 5 % heavy users", base: ndcg, alt: ndcgAlt, lifted: ndcgLift, clustered: true},
	}
}

// userSample is one simulated pair of evaluations.
type userSample struct {
	// left and right are per-unit sums (values, with one row a unit), and
	// rows each unit's row count (nil with one row a unit).
	left, right []float64
	rows        []int32
	// rowLeft, rowRight and rowUnit are the rows themselves, for the
	// tests that ignore units (clustered shapes only).
	rowLeft, rowRight []float64
	// truth is the true mean difference left − right.
	truth float64
}

// draw simulates n users of shape s under family f with latent paired
// correlation rho.
func (s userShape) draw(rng *rand.Rand, n int, rho float64, f family) userSample {
	L, R := s.sides(f)
	out := userSample{truth: L.mean() - R.mean(), left: make([]float64, n), right: make([]float64, n)}
	if !s.clustered {
		for i := range n {
			zl, zr := correlatedNormals(rng, rho)
			out.left[i] = stored(L.quantile(stdNormalCDF(zl)))
			out.right[i] = stored(R.quantile(stdNormalCDF(zr)))
		}
		return out
	}
	out.rows = make([]int32, n)
	a, b := math.Sqrt(withinUser), math.Sqrt(1-withinUser)
	for u := range n {
		m := heavyRows
		if rng.Float64() >= heavyShare {
			m = 1
			for range 4 {
				if rng.Float64() < 0.25 {
					m++
				}
			}
		}
		out.rows[u] = int32(m)
		vl, vr := correlatedNormals(rng, rho)
		var sl, sr float64
		for range m {
			el, er := correlatedNormals(rng, rho)
			l := stored(L.quantile(stdNormalCDF(a*vl + b*el)))
			r := stored(R.quantile(stdNormalCDF(a*vr + b*er)))
			out.rowLeft = append(out.rowLeft, l)
			out.rowRight = append(out.rowRight, r)
			sl += l
			sr += r
		}
		out.left[u], out.right[u] = sl, sr
	}
	return out
}

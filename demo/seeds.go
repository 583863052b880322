package demo

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
)

// This file gives the demo a model whose training is random: a matrix
// factorisation trained for Bayesian personalised ranking (Rendle et al.,
// "BPR: Bayesian Personalized Ranking from Implicit Feedback", UAI 2009) by
// stochastic gradient descent. The seed draws the initial factors and every
// training triple, so two seeds of one configuration are two different
// models, and comparing configurations by one run each mistakes the seeds'
// noise for the configurations' difference.
//
// Training is reproducible bit for bit: math/rand/v2's PCG and its normal
// and uniform draws are plain Go, the movies and users are indexed in
// ascending order, and every product that feeds a sum is rounded explicitly
// (dot, and float64(x*y) in the updates) so that no platform fuses it.

// The BPR training's settings: the learning rate, the L2 penalty on the
// factors (and the item biases) touched by each step, the standard
// deviation of the initial factors, and the number of epochs, each epoch
// drawing as many triples as there are training ratings.
const (
	bprLearningRate = 0.03
	bprPenalty      = 0.002
	bprInitSD       = 0.1
	bprEpochs       = 50
)

// bprStream is the second word of the PCG state: the seed is the first.
const bprStream = 0x5eed_b9b9

// interactions are a split's training ratings indexed for BPR: users and
// movies by dense indices, both in ascending order of ID.
type interactions struct {
	users  []int64       // index -> user ID, ascending
	movies []int64       // index -> movie ID, ascending
	user   map[int64]int // user ID -> index
	pairs  [][2]int32    // (user index, movie index) of each training rating, by user then the user's order
	rated  []uint64      // bit u*len(movies)+i: user u rated movie i in training
}

// newInteractions indexes the training ratings of s.
func newInteractions(s *Split) *interactions {
	ix := &interactions{users: s.Users, user: map[int64]int{}}
	movieIndex := map[int64]int{}
	for _, u := range s.Users {
		for _, m := range s.Train[u] {
			movieIndex[m] = 0
		}
	}
	for m := range movieIndex {
		ix.movies = append(ix.movies, m)
	}
	slices.Sort(ix.movies)
	for i, m := range ix.movies {
		movieIndex[m] = i
	}
	ix.rated = make([]uint64, (len(s.Users)*len(ix.movies)+63)/64)
	for ui, u := range s.Users {
		ix.user[u] = ui
		for _, m := range s.Train[u] {
			mi := movieIndex[m]
			ix.pairs = append(ix.pairs, [2]int32{int32(ui), int32(mi)})
			bit := ui*len(ix.movies) + mi
			ix.rated[bit/64] |= 1 << (bit % 64)
		}
	}
	return ix
}

// hasRated reports whether user index u rated movie index i in training.
func (ix *interactions) hasRated(u, i int) bool {
	bit := u*len(ix.movies) + i
	return ix.rated[bit/64]&(1<<(bit%64)) != 0
}

// bpr is a trained factorisation: user u's score of movie i is
// bias[i] + user[u]·item[i], each factor vector of length factors.
type bpr struct {
	factors    int
	user, item []float64 // row-major: len(users) × factors, len(movies) × factors
	bias       []float64 // per movie
}

// trainBPR trains a BPR factorisation with the given number of factors on
// ix, all its randomness drawn from a PCG seeded with seed. Each step draws
// a training rating (u, i) and a movie j that u did not rate, and takes a
// gradient step on ln σ(x_ui − x_uj) less the penalty.
func trainBPR(ix *interactions, factors int, seed uint64) *bpr {
	rng := rand.New(rand.NewPCG(seed, bprStream))
	m := &bpr{factors: factors,
		user: make([]float64, len(ix.users)*factors),
		item: make([]float64, len(ix.movies)*factors),
		bias: make([]float64, len(ix.movies)),
	}
	for _, v := range [][]float64{m.user, m.item} {
		for k := range v {
			v[k] = bprInitSD * rng.NormFloat64()
		}
	}
	for range bprEpochs * len(ix.pairs) {
		p := ix.pairs[rng.IntN(len(ix.pairs))]
		u, i := int(p[0]), int(p[1])
		j := rng.IntN(len(ix.movies))
		for ix.hasRated(u, j) {
			j = rng.IntN(len(ix.movies))
		}
		m.step(u, i, j)
	}
	return m
}

// step takes one stochastic gradient step on the triple (u, i, j): user u
// rated movie i and not movie j.
func (m *bpr) step(u, i, j int) {
	pu, qi, qj := m.row(m.user, u), m.row(m.item, i), m.row(m.item, j)
	x := m.bias[i] - m.bias[j] + dot(pu, qi) - dot(pu, qj)
	g, _ := sigmoid(-x) // d ln σ(x) / dx
	m.bias[i] += bprLearningRate * (g - float64(bprPenalty*m.bias[i]))
	m.bias[j] += bprLearningRate * (-g - float64(bprPenalty*m.bias[j]))
	for f := range pu {
		wu, wi, wj := pu[f], qi[f], qj[f]
		pu[f] += bprLearningRate * (float64(g*(wi-wj)) - float64(bprPenalty*wu))
		qi[f] += bprLearningRate * (float64(g*wu) - float64(bprPenalty*wi))
		qj[f] += bprLearningRate * (-float64(g*wu) - float64(bprPenalty*wj))
	}
}

// row is row r of the row-major matrix v.
func (m *bpr) row(v []float64, r int) []float64 {
	return v[r*m.factors : (r+1)*m.factors]
}

// top returns user index u's k best movies (IDs) among those the user
// did not rate in training, best first, ties by movie ID.
func (m *bpr) top(ix *interactions, u, k int) []int64 {
	best := make([]scored, 0, k)
	pu := m.row(m.user, u)
	for i, movie := range ix.movies {
		if ix.hasRated(u, i) {
			continue
		}
		s := scored{movie, m.bias[i] + dot(pu, m.row(m.item, i))}
		switch {
		case len(best) < k:
			best = append(best, s)
		case better(s, best[k-1]):
			best[k-1] = s
		default:
			continue
		}
		for at := len(best) - 1; at > 0 && better(best[at], best[at-1]); at-- {
			best[at], best[at-1] = best[at-1], best[at]
		}
	}
	out := make([]int64, len(best))
	for i, s := range best {
		out[i] = s.movie
	}
	return out
}

// better reports whether a ranks before b: higher score, ties by movie ID.
func better(a, b scored) bool {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.movie, b.movie)) < 0
}

// MF is a BPR matrix factorisation of the training ratings of s with the
// given number of factors, trained with seed: run "mf-<factors>-seed<seed>"
// of configuration "mf-<factors>".
func MF(s *Split, factors int, seed uint64) Model {
	return mf(newInteractions(s), factors, seed)
}

// mf trains MF on ix.
func mf(ix *interactions, factors int, seed uint64) Model {
	m := trainBPR(ix, factors, seed)
	group := fmt.Sprintf("mf-%d", factors)
	return Model{Name: fmt.Sprintf("%s-seed%d", group, seed), Group: group,
		Params: map[string]any{"model": "bpr-mf", "factors": factors, "seed": seed, "epochs": bprEpochs,
			"learning_rate": bprLearningRate, "penalty": bprPenalty},
		Rank: func(user int64, k int) []int64 { return m.top(ix, ix.user[user], k) }} // users of the split only
}

// SeededMFs trains each configuration (a number of factors) with each seed
// on s, concurrently, and returns the models configuration by
// configuration, seed by seed. Each model is the same, bit for bit, however
// many run at once.
func SeededMFs(s *Split, factors []int, seeds []uint64) []Model {
	ix := newInteractions(s)
	out := make([]Model, len(factors)*len(seeds))
	var wg sync.WaitGroup
	for fi, f := range factors {
		for si, seed := range seeds {
			wg.Go(func() { out[fi*len(seeds)+si] = mf(ix, f, seed) })
		}
	}
	wg.Wait()
	return out
}

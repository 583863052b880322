// Package demo builds the story `verdict demo` tells on real data: the
// MovieLens "latest-small" ratings, split in time per user, and three simple
// recommenders trained on each user's earlier ratings and asked for the
// movies the user rated last; and a classifier's part on the Wisconsin
// Diagnostic Breast Cancer data, two logistic regressions whose predicted
// probabilities are logged and compared as predictions. It produces
// rankings, targets and predictions; evaluating, logging and comparing them
// is the job of the packages a real user calls.
package demo

import (
	"cmp"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/verdict-ml/verdict"
)

// Rating is one rating of the data set.
type Rating struct {
	User, Movie int64
	Stars       float64
	Time        int64 // Unix seconds
}

// LoadMovieLens reads the embedded ratings.
func LoadMovieLens() ([]Rating, error) {
	f, err := verdict.MovieLens.Open("testdata/movielens-latest-small/ratings.csv.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("movielens ratings: %w", err)
	}
	r := csv.NewReader(z)
	r.ReuseRecord = true
	if _, err := r.Read(); err != nil { // header
		return nil, fmt.Errorf("movielens ratings: %w", err)
	}
	var out []Rating
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("movielens ratings: %w", err)
		}
		var x Rating
		var perr [4]error
		x.User, perr[0] = strconv.ParseInt(rec[0], 10, 64)
		x.Movie, perr[1] = strconv.ParseInt(rec[1], 10, 64)
		x.Stars, perr[2] = strconv.ParseFloat(rec[2], 64)
		x.Time, perr[3] = strconv.ParseInt(rec[3], 10, 64)
		for _, e := range perr {
			if e != nil {
				return nil, fmt.Errorf("movielens ratings line %d: %w", len(out)+2, e)
			}
		}
		out = append(out, x)
	}
}

// Split is a per-user split in time: each user's last Test ratings are the
// targets, everything before is training data.
type Split struct {
	Users   []int64           // ascending
	Train   map[int64][]int64 // user -> movies rated before the test ratings
	Targets map[int64][]int64 // user -> the movies of the test ratings
	// TrainRatings are the training ratings, for models that need times.
	TrainRatings []Rating
}

// DemoSplit is the split the demo evaluates on: each user's 10 latest
// ratings held out. It reads and splits the ratings once per process.
var DemoSplit = sync.OnceValues(func() (*Split, error) {
	ratings, err := LoadMovieLens()
	if err != nil {
		return nil, err
	}
	return SplitLatest(ratings, heldOut), nil
})

// SplitLatest holds out each user's latest test ratings (ties in time broken
// by movie ID). Users with no more than test ratings keep them all for
// training and have no targets.
func SplitLatest(ratings []Rating, test int) *Split {
	byUser := map[int64][]Rating{}
	for _, r := range ratings {
		byUser[r.User] = append(byUser[r.User], r)
	}
	s := &Split{Train: map[int64][]int64{}, Targets: map[int64][]int64{}}
	for u, rs := range byUser {
		s.Users = append(s.Users, u)
		slices.SortFunc(rs, func(a, b Rating) int {
			return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.Movie, b.Movie))
		})
		cut := len(rs)
		if len(rs) > test {
			cut = len(rs) - test
		}
		for _, r := range rs[:cut] {
			s.Train[u] = append(s.Train[u], r.Movie)
			s.TrainRatings = append(s.TrainRatings, r)
		}
		for _, r := range rs[cut:] {
			s.Targets[u] = append(s.Targets[u], r.Movie)
		}
	}
	slices.Sort(s.Users)
	return s
}

// Model ranks movies for users.
type Model struct {
	Name string
	// Group is the configuration a run trained with one of several seeds
	// belongs to, or "" for a model with no randomness.
	Group  string
	Params map[string]any
	// Rank returns the user's top k movies, best first, among those the user
	// did not rate in training.
	Rank func(user int64, k int) []int64
}

// Popularity recommends the movies rated most often in training.
func Popularity(s *Split) Model {
	counts := map[int64]float64{}
	for _, r := range s.TrainRatings {
		counts[r.Movie]++
	}
	order := byScore(counts)
	return Model{Name: "popularity", Params: map[string]any{"model": "popularity"},
		Rank: func(user int64, k int) []int64 { return topUnseen(order, s.Train[user], k) }}
}

// RecentPopularity recommends the movies rated most often in training, each
// rating weighted down by its age: a half-life of halfLifeDays before the
// latest training rating.
func RecentPopularity(s *Split, halfLifeDays float64) Model {
	var latest int64
	for _, r := range s.TrainRatings {
		latest = max(latest, r.Time)
	}
	counts := map[int64]float64{}
	for _, r := range s.TrainRatings {
		age := float64(latest-r.Time) / 86400
		counts[r.Movie] += math.Exp2(-age / halfLifeDays)
	}
	order := byScore(counts)
	return Model{Name: "recent-popularity", Params: map[string]any{"model": "recent-popularity", "half_life_days": halfLifeDays},
		Rank: func(user int64, k int) []int64 { return topUnseen(order, s.Train[user], k) }}
}

// ItemKNN scores a movie by its cosine similarity to the movies the user
// rated in training, summed over each rated movie's neighbours most similar
// movies. Similarity is co-occurrence in users' histories; to keep the demo
// quick, each history counts with its latest recent ratings only.
func ItemKNN(s *Split, neighbours, recent int) Model {
	latest := func(h []int64) []int64 { return h[max(0, len(h)-recent):] }
	raters := map[int64]float64{}
	co := map[uint64]float64{}
	for _, u := range s.Users {
		h := latest(s.Train[u])
		for i, a := range h {
			raters[a]++
			for _, b := range h[i+1:] {
				co[pairKey(a, b)]++
			}
		}
	}
	// Keep each movie's most similar neighbours.
	sims := map[int64][]scored{}
	for key, n := range co {
		a, b := int64(key>>32), int64(key&0xffffffff)
		sim := n / math.Sqrt(raters[a]*raters[b])
		sims[a] = append(sims[a], scored{b, sim})
		sims[b] = append(sims[b], scored{a, sim})
	}
	for m, list := range sims {
		slices.SortFunc(list, func(a, b scored) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.movie, b.movie))
		})
		sims[m] = list[:min(len(list), neighbours)]
	}
	return Model{Name: "item-knn", Params: map[string]any{"model": "item-knn", "neighbours": neighbours, "recent": recent},
		Rank: func(user int64, k int) []int64 {
			scores := map[int64]float64{}
			for _, m := range latest(s.Train[user]) {
				for _, n := range sims[m] {
					scores[n.movie] += n.score
				}
			}
			return topUnseen(byScore(scores), s.Train[user], k)
		}}
}

// pairKey packs two movie IDs (below 2^32) into one key, smaller first.
func pairKey(a, b int64) uint64 {
	return uint64(min(a, b))<<32 | uint64(max(a, b))
}

type scored struct {
	movie int64
	score float64
}

// byScore orders movies by descending score, ties by movie ID.
func byScore(scores map[int64]float64) []int64 {
	list := make([]scored, 0, len(scores))
	for m, sc := range scores {
		list = append(list, scored{m, sc})
	}
	slices.SortFunc(list, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.movie, b.movie))
	})
	out := make([]int64, len(list))
	for i, x := range list {
		out[i] = x.movie
	}
	return out
}

func topUnseen(order, seen []int64, k int) []int64 {
	skip := make(map[int64]bool, len(seen))
	for _, m := range seen {
		skip[m] = true
	}
	out := make([]int64, 0, k)
	for _, m := range order {
		if len(out) == k {
			break
		}
		if !skip[m] {
			out = append(out, m)
		}
	}
	return out
}

// Rankings returns, for every user of the split, the model's top k and the
// user's targets, ready for evaluate.NewInMemoryRankings. Sample IDs are
// "user-<id>".
func Rankings(s *Split, m Model, k int) (ids []string, ranked, targets [][]int64) {
	for _, u := range s.Users {
		ids = append(ids, fmt.Sprintf("user-%d", u))
		ranked = append(ranked, m.Rank(u, k))
		targets = append(targets, s.Targets[u])
	}
	return ids, ranked, targets
}

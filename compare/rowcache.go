package compare

import (
	"context"
	"slices"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// RowCache keeps the rows of leaderboards computed before, so that a
// leaderboard asked for again once a few runs were logged resamples only
// theirs: a server answering a dashboard that polls a growing experiment
// keeps one (LeaderboardQuery.Rows). A row's numbers depend on its
// evaluation's values, the reference's, the metric and the resampling's
// options alone, and an evaluation's values never change once logged; a
// row it returns is the one a new computation gives, bit for bit. It is
// safe for concurrent use, and holds at most the rows it was made for,
// dropping the least recently used.
type RowCache struct {
	rows  *lru.Cache[rowKey, LeaderboardRow]
	means *lru.Cache[rowKey, stats.Interval] // keyed with no reference
}

// NewRowCache returns a RowCache of up to size rows and as many means.
func NewRowCache(size int) *RowCache {
	rows, err := lru.New[rowKey, LeaderboardRow](max(size, 1))
	if err != nil {
		panic(err) // only for a size below 1
	}
	means, err := lru.New[rowKey, stats.Interval](max(size, 1))
	if err != nil {
		panic(err)
	}
	return &RowCache{rows: rows, means: means}
}

// rowKey names a row's numbers: the evaluation and the reference it was
// paired with (the same for the reference's own row), each with the time
// it was logged, so that an ID in a database recreated under a running
// server names another row; the metric's position; and the options that
// change the numbers.
type rowKey struct {
	eval, ref        int64
	evalAt, refAt    int64
	metric, refIndex int32
	seed             uint64
	resamples        int
	confidence       float64
}

func keyOf(e, ref *store.RunMean, opts Options) rowKey {
	k := rowKey{
		eval: e.EvaluationID, evalAt: e.CreatedAt.UnixNano(), metric: e.MetricIndex,
		seed: opts.Seed, resamples: opts.resamples(), confidence: opts.confidence(),
	}
	if ref != nil {
		k.ref, k.refAt, k.refIndex = ref.EvaluationID, ref.CreatedAt.UnixNano(), ref.MetricIndex
	}
	return k
}

// leaderboardRowsCached is leaderboardRows for runs of one row a unit,
// the reference among them, through cache: the rows it holds are taken
// from it; the others are computed together with the reference's, each
// run's mean taken from cache when it holds it (a new reference changes
// the differences, not the means), and kept.
func leaderboardRowsCached(ctx context.Context, st *store.Store, ranked []store.RunMean, shown []int, ref int, metric string, opts Options, cache *RowCache) ([]LeaderboardRow, error) {
	rows := make([]LeaderboardRow, len(shown))
	at := make(map[int]int, len(shown)) // ranked index → row
	var need []int
	for k, i := range shown {
		at[i] = k
		row, ok := cache.rows.Get(keyOf(&ranked[i], &ranked[ref], opts))
		if !ok {
			need = append(need, i)
			continue
		}
		row.Rank = i + 1
		rows[k] = ownPointers(row)
	}
	if len(need) == 0 {
		return rows, nil
	}
	if !slices.Contains(need, ref) {
		need = append(need, ref)
		slices.Sort(need)
	}
	means := make([]store.RunMean, len(need))
	haveMean := make([]bool, len(need))
	mean := make([]stats.Interval, len(need))
	for j, i := range need {
		means[j] = ranked[i]
		mean[j], haveMean[j] = cache.means.Get(keyOf(&ranked[i], nil, opts))
	}
	var cols [][]float64
	if batchable(means) {
		var err error
		if _, cols, err = st.RunMeansColumns(ctx, means); err != nil {
			return nil, err
		}
	}
	var computed []LeaderboardRow
	var err error
	if cols == nil && !sharedFits(means) {
		computed, _, err = leaderboardRows(ctx, st, ranked, need, ref, metric, opts, nil, nil, false, false)
		clear(haveMean)
	} else {
		computed, err = leaderboardRowsShared(ctx, st, means, slices.Index(need, ref), metric, cols, opts, haveMean)
	}
	if err != nil {
		return nil, err
	}
	for j, i := range need {
		row := computed[j]
		row.Rank = i + 1
		if haveMean[j] {
			row.Mean = mean[j]
		}
		cache.means.Add(keyOf(&ranked[i], nil, opts), row.Mean)
		cache.rows.Add(keyOf(&ranked[i], &ranked[ref], opts), ownPointers(row))
		rows[at[i]] = row
	}
	return rows, nil
}

// ownPointers returns row with its own copies of what its pointers point
// to: a row kept in the cache and a row given to a caller, which changes
// it, share nothing.
func ownPointers(row LeaderboardRow) LeaderboardRow {
	if row.Difference != nil {
		d := *row.Difference
		row.Difference = &d
	}
	if row.PValue != nil {
		p := *row.PValue
		row.PValue = &p
	}
	return row
}

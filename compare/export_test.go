package compare

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/verdict-ml/verdict/stats"
)

// Poke changes the rows c keeps of evaluation id, for tests that tell a
// row taken from c from one computed anew.
func (c *RowCache) Poke(id int64, f func(*LeaderboardRow)) (poked int) { return poke(c.rows, id, f) }

// PokeMean changes the means c keeps of evaluation id.
func (c *RowCache) PokeMean(id int64, f func(*stats.Interval)) (poked int) {
	return poke(c.means, id, f)
}

// poke changes the values of cache kept for evaluation id.
func poke[V any](cache *lru.Cache[rowKey, V], id int64, f func(*V)) (poked int) {
	for _, k := range cache.Keys() {
		if k.eval != id {
			continue
		}
		v, _ := cache.Peek(k)
		f(&v)
		cache.Add(k, v)
		poked++
	}
	return poked
}

// WithDiffOnWorkers is ctx under which a drill-down takes the workers'
// path on one server too, counting differences in buckets buckets and
// reading a bucket of at most fetch units value by value.
func WithDiffOnWorkers(ctx context.Context, buckets int, fetch int64) context.Context {
	return context.WithValue(ctx, diffLimitsKey{}, diffLimits{buckets: buckets, fetch: fetch, oneServer: true})
}

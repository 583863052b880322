package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// TestPoissonWeightsAgreeWithSQL draws the Poisson bootstrap's weights and
// the sign-flip test's signs for 500 sample IDs (empty, short, long,
// non-ASCII) in 40 replicates under three seeds, in SQL (migration 21) and
// in Go (stats.PoissonWeight, stats.FlipSign): they must be the same,
// every one.
func TestPoissonWeightsAgreeWithSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := setup(t)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)

	ids := []string{"", "a", "user-00042", "exactly12byt", "thirteen byte", "ünïcode ✓ sample", "u9999999"}
	for i := len(ids); i < 500; i++ {
		ids = append(ids, fmt.Sprintf("s%06d", i*7919))
	}
	for _, seed := range []uint64{0, 42, 1 << 63} {
		rows, err := conn.Query(ctx, `
			SELECT id, b, verdict_poisson_weight(id, b, $2), verdict_flip_sign(id, b, $2)
			FROM unnest($1::text[]) AS id, generate_series(0, 39) AS b`, ids, int64(seed))
		require.NoError(t, err)
		n, sum := 0, 0
		for rows.Next() {
			var id string
			var b, w int32
			var flip bool
			require.NoError(t, rows.Scan(&id, &b, &w, &flip))
			require.Equal(t, stats.PoissonWeight(id, b, seed), w, "seed %d, id %q, replicate %d", seed, id, b)
			require.Equal(t, stats.FlipSign(id, b, seed), flip, "seed %d, id %q, replicate %d", seed, id, b)
			n++
			sum += int(w)
		}
		require.NoError(t, rows.Err())
		require.Equal(t, 500*40, n)
		// Poisson(1) weights average 1: 20,000 of them within 4 standard
		// errors (1/sqrt(20000) ≈ 0.007).
		require.InDelta(t, 1.0, float64(sum)/float64(n), 0.03, "seed %d", seed)
	}
}

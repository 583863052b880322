package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/pghash"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestHashPartitionMatchesPostgres checks the Go routing against the server:
// hashtextextended for the raw hash, hashint8extended, and the partition
// PostgreSQL itself picks for rows inserted into a hash-partitioned table.
func TestHashPartitionMatchesPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storetest.NewDatabase(t))
	require.NoError(t, err)
	defer conn.Close(ctx)

	keys := []string{"", "a", "ab", "abc", "abcd", "abcde", "u0000001", "user-00042", "exactly12byt",
		"thirteen byte", "a much longer sample identifier with ünïcode ✓ in it", "23", "9999999"}
	for i := range 200 {
		keys = append(keys, fmt.Sprintf("u%07d", i*7919))
	}
	for _, k := range keys {
		var want int64
		require.NoError(t, conn.QueryRow(ctx, `SELECT hashtextextended($1 COLLATE "C", $2)`, k, int64(hashPartitionSeed)).Scan(&want))
		require.Equal(t, uint64(want), pghash.BytesExtended(k, hashPartitionSeed), "key %q", k)
	}

	// hashint8extended, which draws the Poisson weights, for values of
	// either sign and seeds 0 (no seed mix), small and large; Seed and
	// Int8Fold give it by parts, as the replicate loops use it.
	for _, v := range []int64{0, 1, -1, 42, -42, 1 << 32, -(1 << 32), 0x7fffffffffffffff, -0x8000000000000000, 0x123456789abcdef} {
		for _, seed := range []int64{0, 1, 5, 1999, -7, 0x5eed5eed5eed} {
			var want int64
			require.NoError(t, conn.QueryRow(ctx, `SELECT hashint8extended($1, $2)`, v, seed).Scan(&want))
			require.Equal(t, uint64(want), pghash.Int8Extended(v, uint64(seed)), "v %d seed %d", v, seed)
			require.Equal(t, uint64(want), pghash.Seed(uint64(seed)).Hash(pghash.Int8Fold(v)), "v %d seed %d", v, seed)
		}
	}

	for _, modulus := range []uint64{2, 3, 4} {
		table := fmt.Sprintf("h%d", modulus)
		_, err := conn.Exec(ctx, fmt.Sprintf(`CREATE TABLE %s (k text COLLATE "C") PARTITION BY HASH (k)`, table))
		require.NoError(t, err)
		for r := range modulus {
			_, err := conn.Exec(ctx, fmt.Sprintf(`CREATE TABLE %s_%d PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)`, table, r, table, modulus, r))
			require.NoError(t, err)
		}
		for _, k := range keys {
			var part string
			require.NoError(t, conn.QueryRow(ctx, fmt.Sprintf(`INSERT INTO %s VALUES ($1) RETURNING tableoid::regclass::text`, table), k).Scan(&part))
			require.Equal(t, fmt.Sprintf("%s_%d", table, hashPartition(k, modulus)), part, "key %q modulus %d", k, modulus)
		}
	}
}

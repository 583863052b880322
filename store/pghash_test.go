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
// hashtextextended for the raw hash, and the partition PostgreSQL itself
// picks for rows inserted into a hash-partitioned table.
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

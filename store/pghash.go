package store

import "github.com/verdict-ml/verdict/internal/pghash"

// The functions below reproduce how PostgreSQL routes a text value with a
// deterministic collation to a hash partition, so that rows can be split
// among partitions while streaming and loaded over several connections. The
// algorithm is Bob Jenkins' lookup3 hash as PostgreSQL's hash_bytes_extended
// uses it (little-endian word order), seeded with the constant PostgreSQL
// uses for partitioning. ATTACH PARTITION verifies the routing, so a mistake
// here fails loudly instead of misplacing rows.

// hashPartitionSeed is PostgreSQL's HASH_PARTITION_SEED.
const hashPartitionSeed = 0x7A5B22367996DCFD

// hashPartition returns the remainder of the hash partition that PostgreSQL
// puts a text key in, for the given modulus.
func hashPartition[K ~string | ~[]byte](key K, modulus uint64) uint64 {
	h := pghash.BytesExtended(key, hashPartitionSeed)
	// hash_combine64(0, h), as computed for a one-column partition key.
	h += 0x49a0f4dd15e5a8e3
	return h % modulus
}

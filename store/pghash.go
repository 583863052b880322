package store

import "math/bits"

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
	h := hashBytesExtended(key, hashPartitionSeed)
	// hash_combine64(0, h), as computed for a one-column partition key.
	h += 0x49a0f4dd15e5a8e3
	return h % modulus
}

func jmix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func jfinal(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}

// le32 reads up to four bytes of k as a little-endian word.
func le32[K ~string | ~[]byte](k K) uint32 {
	var w uint32
	for i := len(k) - 1; i >= 0; i-- {
		w = w<<8 | uint32(k[i])
	}
	return w
}

// hashBytesExtended is PostgreSQL's hash_bytes_extended on a little-endian
// machine.
func hashBytesExtended[K ~string | ~[]byte](k K, seed uint64) uint64 {
	a := 0x9e3779b9 + uint32(len(k)) + 3923095
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = jmix(a, b, c)
	}
	for len(k) >= 12 {
		a += le32(k[0:4])
		b += le32(k[4:8])
		c += le32(k[8:12])
		a, b, c = jmix(a, b, c)
		k = k[12:]
	}
	// The last 0..11 bytes; the lowest byte of c is left for the length.
	switch {
	case len(k) > 8:
		c += le32(k[8:]) << 8
		fallthrough
	case len(k) > 4:
		b += le32(k[4:min(len(k), 8)])
		fallthrough
	case len(k) > 0:
		a += le32(k[0:min(len(k), 4)])
	}
	a, b, c = jfinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

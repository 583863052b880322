package stats

import (
	"slices"

	"github.com/verdict-ml/verdict/internal/pghash"
)

// The Poisson bootstrap gives every unit, in replicate b, a weight drawn
// from Poisson(1) instead of drawing n units with replacement: the weights
// of different units are independent, so a replicate's weighted sums can
// be computed on any subset of the units (a shard of a distributed table)
// and added up. verdict derives each weight from a hash of the unit's
// sample ID, the replicate and the seed, the same in Go (PoissonWeight) and
// in SQL (the function verdict_poisson_weight of migration 13), so that a
// database computing its shards' sums and Go computing them from the pairs
// draw the same replicates bit for bit:
//
//	h = hashint8extended(hashtextextended(sample_id COLLATE "C", seed), b)
//
// read as an unsigned 64-bit number u, and the weight is the smallest k
// with u < T_k, where T_k is the Poisson(1) distribution function at k
// times 2⁶⁴, rounded down (poissonThresholds). The sign-flip test takes
// its sign from the lowest bit of the same hash of replicate b.

// poissonThresholds are ⌊F(k)·2⁶⁴⌋ for the Poisson(1) distribution
// function F, k = 0..19, computed with 60-digit decimal arithmetic; past
// the last, the weight is 20, which has probability below 2⁻⁶¹.
var poissonThresholds = [...]uint64{
	0x5e2d58d8b3bcdf1a, 0xbc5ab1b16779be35, 0xeb715e1dc1582dc2, 0xfb23979734a252f1,
	0xff1025f59174dc3d, 0xffd90f3ba4055e19, 0xfffa8b71fc72c913, 0xffff540c0914b3c9,
	0xffffed1f4aa8f120, 0xfffffe216e641462, 0xffffffd4d85d3183, 0xfffffffc6da262b4,
	0xffffffffba12d178, 0xfffffffffb07c64c, 0xffffffffffab8ea5, 0xfffffffffffabe22,
	0xffffffffffffb11a, 0xfffffffffffffba1, 0xffffffffffffffc5, 0xfffffffffffffffd,
}

// replicateHash is the hash of a sample ID's replicate b under seed.
func replicateHash(sampleID string, b int32, seed uint64) uint64 {
	return pghash.Int8Extended(int64(pghash.BytesExtended(sampleID, seed)), uint64(int64(b)))
}

// PoissonWeight is the weight, drawn from Poisson(1), of the unit
// sampleID in replicate b of a Poisson bootstrap with seed: the same
// number verdict_poisson_weight(sample_id, b, seed) gives in SQL.
func PoissonWeight(sampleID string, b int32, seed uint64) int32 {
	return int32(weightOfHash(replicateHash(sampleID, b, seed)))
}

// weightOfHash is the Poisson weight of a replicate hash u: the number of
// thresholds at or below it.
func weightOfHash(u uint64) int64 {
	for k, t := range poissonThresholds {
		if u < t {
			return int64(k)
		}
	}
	return int64(len(poissonThresholds))
}

// PoissonThresholds are the thresholds of PoissonWeight, for a database
// that draws the same weights (store's replicate query): the weight of a
// replicate hash is the number of thresholds at or below it.
func PoissonThresholds() []uint64 { return slices.Clone(poissonThresholds[:]) }

// FlipSign reports whether the unit sampleID flips the sign of its
// difference in replicate b of a sign-flip test with seed: the lowest bit
// of the replicate's hash, as verdict_flip_sign(sample_id, b, seed) gives
// in SQL.
func FlipSign(sampleID string, b int32, seed uint64) bool {
	return replicateHash(sampleID, b, seed)&1 == 1
}

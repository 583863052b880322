package stats

import (
	"github.com/verdict-ml/verdict/internal/pghash"
)

// The Poisson bootstrap gives every unit, in replicate b, a weight drawn
// from Poisson(1) instead of drawing n units with replacement: the weights
// of different units are independent, so a replicate's weighted sums can
// be computed on any subset of the units (a shard of a distributed table)
// and added up. verdict derives each weight from a hash of the unit's
// sample ID, the replicate and the seed, the same in Go (PoissonWeight) and
// in SQL (the function verdict_poisson_weight of migration 21), so that a
// database computing its shards' sums and Go computing them from the pairs
// draw the same replicates bit for bit. One hash serves a block of four
// replicates:
//
//	h = hashint8extended(hashtextextended(sample_id COLLATE "C", seed), b / 4)
//
// and replicate b reads the 16 bits of h at 16·(b mod 4). Their high 15
// bits, v, give the weight: the smallest k with v < T_k, where T_k is the
// Poisson(1) distribution function at k times 2¹⁵, rounded to the nearest
// integer (poissonThresholds), so that each weight's probability is
// Poisson(1)'s within 2⁻¹⁶ and the weights run from 0 to 7. Their lowest
// bit is the sign-flip test's: set, the unit's difference changes sign.

// poissonThresholds are round(F(k)·2¹⁵) for the Poisson(1) distribution
// function F, k = 0..6; at or past the last, the weight is 7.
var poissonThresholds = [...]uint64{12055, 24109, 30137, 32146, 32648, 32749, 32765}

// replicateLanes is the number of replicates one hash serves.
const replicateLanes = 4

// replicateHash is the hash of a sample ID's block of replicates j under
// seed: replicates 4j … 4j+3.
func replicateHash(sampleID string, j int32, seed uint64) uint64 {
	return pghash.Int8Extended(int64(pghash.BytesExtended(sampleID, seed)), uint64(int64(j)))
}

// replicateField is replicate b's 16 bits of its block's hash h.
func replicateField(h uint64, b int) uint64 { return h >> (16 * (b % replicateLanes)) & 0xffff }

// PoissonWeight is the weight, drawn from Poisson(1), of the unit
// sampleID in replicate b of a Poisson bootstrap with seed: the same
// number verdict_poisson_weight(sample_id, b, seed) gives in SQL.
func PoissonWeight(sampleID string, b int32, seed uint64) int32 {
	return int32(weightOfField(replicateField(replicateHash(sampleID, b/replicateLanes, seed), int(b))))
}

// weightOfField is the Poisson weight of a replicate's 16 bits f: the
// number of thresholds at or below their high 15.
func weightOfField(f uint64) int64 {
	v := f >> 1
	for k, t := range poissonThresholds {
		if v < t {
			return int64(k)
		}
	}
	return int64(len(poissonThresholds))
}

// FlipSign reports whether the unit sampleID flips the sign of its
// difference in replicate b of a sign-flip test with seed: the lowest of
// the replicate's 16 bits, as verdict_flip_sign(sample_id, b, seed) gives
// in SQL.
func FlipSign(sampleID string, b int32, seed uint64) bool {
	return replicateField(replicateHash(sampleID, b/replicateLanes, seed), int(b))&1 == 1
}

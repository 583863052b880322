package store

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/verdict-ml/verdict/stats"
)

// RankSumsMaxRuns is the most evaluations RankSums ranks in one query:
// each unit's K values are compared pairwise, K² terms of SQL.
const RankSumsMaxRuns = 16

// RankSums are K evaluations' values of one metric, ranked unit by unit
// over the units every one of them has, reduced where the values are
// stored: the Friedman test's rank sums (stats.RankSums, rank 1 for the
// best value), and each evaluation's exact sum of its values over those
// units.
type RankSums struct {
	Ranks stats.RankSums
	// Outside counts the units with a value outside Q64: when it is not
	// zero Sums are not set.
	Outside int64
	// Sums are Σ value·2⁶⁴ of each evaluation over the ranked units.
	Sums []*big.Int
}

// RankSums ranks the evaluations' values of metric unit by unit, the
// lowest value best when lowerIsBetter, in one aggregate query: on a
// distributed database each shard ranks its own units (an evaluation's
// units are co-located by sample ID) and only the sums reach the caller,
// about 20 bytes a shard and evaluation. The evaluations must hold one
// row per unit (OneRowPerUnit), and be 2 to RankSumsMaxRuns. Values are
// compared as stored; equal ones share their average rank.
func (s *Store) RankSums(ctx context.Context, evals []*Evaluation, metric string, lowerIsBetter bool) (*RankSums, error) {
	k := len(evals)
	if k < 2 || k > RankSumsMaxRuns {
		return nil, fmt.Errorf("%w: rank sums take 2 to %d evaluations, got %d", ErrBadInput, RankSumsMaxRuns, k)
	}
	args := make([]any, k)
	ids := make([]int64, k)
	for j, e := range evals {
		if err := perUnit(e); err != nil {
			return nil, err
		}
		if e.Units != e.ScoredRows {
			return nil, fmt.Errorf("%w: evaluation %d has several rows per unit", ErrBadInput, e.ID)
		}
		i, err := metricIndex(e, metric)
		if err != nil {
			return nil, err
		}
		args[j], ids[j] = i+1, e.ID
	}
	r := &RankSums{Ranks: stats.RankSums{Twice: make([]int64, k)}}
	texts := make([]*string, 2*k)
	mins, maxs := make([]*int64, k), make([]*int64, k)
	dest := []any{&r.Ranks.Blocks, &r.Ranks.Ties, &r.Outside}
	for j := range k {
		dest = append(dest, &r.Ranks.Twice[j], &mins[j], &maxs[j], &texts[2*j], &texts[2*j+1])
	}
	err := s.InTx(ctx, func(t *Tx) error {
		if err := t.noJIT(ctx); err != nil {
			return err
		}
		return t.tx.QueryRow(ctx, rankSumsQuery(ids, lowerIsBetter), args...).Scan(dest...)
	})
	if err != nil {
		return nil, fmt.Errorf("rank evaluations %v: %w", ids, err)
	}
	r.Ranks.SameOrder = r.Ranks.Blocks > 0
	for j := range k {
		r.Ranks.SameOrder = r.Ranks.SameOrder && *mins[j] == *maxs[j]
	}
	if r.Outside > 0 || r.Ranks.Blocks == 0 {
		return r, nil
	}
	parts := make([]*big.Int, 2*k)
	for i, p := range texts {
		parts[i] = new(big.Int)
		if p == nil {
			return nil, fmt.Errorf("rank evaluations %v: a sum is missing", ids)
		}
		if _, ok := parts[i].SetString(*p, 10); !ok {
			return nil, fmt.Errorf("rank evaluations %v: sum %q is not an integer", ids, *p)
		}
	}
	for j := range k {
		r.Sums = append(r.Sums, q64(parts[2*j], parts[2*j+1]))
	}
	return r, nil
}

// rankSumsQuery is RankSums' query over the evaluations ids; $j is the
// jth evaluation's metric index. Per unit, e_j counts the values equal to
// value j (itself included) and h_j those better, so that twice j's
// average rank is 1 + 2·h_j + e_j and a group of t ties adds t·(t² − 1)
// = Σ over its members of e_j² − 1. One column's twice-ranks constant
// over the units (min = max for every column) is every unit ranking the
// runs alike.
func rankSumsQuery(ids []int64, lowerIsBetter bool) string {
	k := len(ids)
	better := ">"
	if lowerIsBetter {
		better = "<"
	}
	var from, vals, counts, aggs []string
	var ties, ok []string
	for j, id := range ids {
		if j == 0 {
			from = append(from, fmt.Sprintf("%s u1", partitionName(id)))
		} else {
			from = append(from, fmt.Sprintf("JOIN %s u%d ON u%d.sample_id = u1.sample_id", partitionName(id), j+1, j+1))
		}
		vals = append(vals, fmt.Sprintf("u%d.vals[$%d]::float8 AS v%d", j+1, j+1, j+1))
		var eq, hi []string
		for i := range k {
			if i != j {
				eq = append(eq, fmt.Sprintf("(v%d = v%d)::int", i+1, j+1))
				hi = append(hi, fmt.Sprintf("(v%d %s v%d)::int", i+1, better, j+1))
			}
		}
		v := fmt.Sprintf("v%d", j+1)
		counts = append(counts, fmt.Sprintf("1 + %s AS e%d, %s AS h%d, %s AS ok%d, CASE WHEN %s THEN %s END AS hi%d, CASE WHEN %s THEN %s END AS lo%d",
			strings.Join(eq, " + "), j+1, strings.Join(hi, " + "), j+1, inFixed(v), j+1, inFixed(v), fixedHi(v), j+1, inFixed(v), fixedLo(v), j+1))
		aggs = append(aggs, fmt.Sprintf("coalesce(sum(1 + 2 * h%[1]d + e%[1]d), 0), min(2 * h%[1]d + e%[1]d), max(2 * h%[1]d + e%[1]d), sum(hi%[1]d)::text, sum(lo%[1]d)::text", j+1))
		ties = append(ties, fmt.Sprintf("e%d * e%d - 1", j+1, j+1))
		ok = append(ok, fmt.Sprintf("ok%d", j+1))
	}
	// A fence keeps each level's columns computed once per unit.
	return `
		SELECT count(*), coalesce(sum(` + strings.Join(ties, " + ") + `), 0),
		       count(*) FILTER (WHERE NOT (` + strings.Join(ok, " AND ") + `)),
		       ` + strings.Join(aggs, ",\n\t\t       ") + `
		FROM (
			SELECT ` + strings.Join(counts, ",\n\t\t\t       ") + `, ` + fence + `
			FROM (
				SELECT ` + strings.Join(vals, ", ") + `, ` + fence + `
				FROM ` + strings.Join(from, " ") + `
			) v
		) c`
}

package compare

import (
	"context"
	"fmt"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// reducer gives what the tests of means read from one metric's paired
// units of one row each: the exact summary, the hashed replicates, the
// magnitudes grouped. goUnits computes them from the pairs in Go; pushed
// has the database compute them where the values are stored. Both give
// the same numbers bit for bit (store's TestSummaryQueriesEqualGo).
type reducer interface {
	summary() stats.PairedSummary
	replicates(ctx context.Context, B int, seed uint64) (*stats.Replicates, error)
	ranks(ctx context.Context) (stats.SignedRanks, error)
}

// goUnits reduces pairs held in Go.
type goUnits struct {
	ids         []string
	left, right []float64
	sum         stats.PairedSummary
}

func newGoUnits(ids []string, left, right []float64) (*goUnits, error) {
	s, err := stats.SummarizePairs(left, right)
	if err != nil {
		return nil, err
	}
	return &goUnits{ids: ids, left: left, right: right, sum: s}, nil
}

func (g *goUnits) summary() stats.PairedSummary { return g.sum }

func (g *goUnits) replicates(ctx context.Context, B int, seed uint64) (*stats.Replicates, error) {
	return stats.HashedReplicates(ctx, g.ids, stats.PairedUnits{LeftSum: g.left, RightSum: g.right}, B, seed)
}

func (g *goUnits) ranks(context.Context) (stats.SignedRanks, error) {
	return stats.SignedRanksOfPairs(g.left, g.right)
}

// pushed reduces two evaluations' values in the database, in the
// comparison's transaction.
type pushed struct {
	tx              *store.Tx
	leftID, rightID int64
	metric          string
	s               *store.Summary
}

func (p *pushed) summary() stats.PairedSummary {
	return stats.PairedSummary{
		N: p.s.N, Greater: p.s.Greater, Less: p.s.Less, NonBinary: p.s.NonBinary, Scale: stats.FixedScale,
		SumLeft: p.s.SumLeft, SumRight: p.s.SumRight, SumDiff: p.s.SumDiff, SumDiffSq: p.s.SumDiffSq,
	}
}

// replicates streams the pairs' hashed sample IDs and differences from
// the workers, 24 bytes a unit, and draws the replicates in Go as they
// arrive. Drawing them on the workers instead moves only O(B) sums, but
// SQL spends 0.25 µs of a core on a (pair, replicate) where Go spends
// about 2 ns: moving the units wins until the workers have some eighty
// times the coordinator's cores (docs/scale-out.md).
func (p *pushed) replicates(ctx context.Context, B int, seed uint64) (*stats.Replicates, error) {
	s, err := stats.NewReplicateStream(B, seed)
	if err != nil {
		return nil, err
	}
	if err := p.tx.StreamDifferences(ctx, p.s, seed, func(hashes, hi, lo []int64) error {
		return s.Add(ctx, hashes, hi, lo)
	}); err != nil {
		return nil, err
	}
	r, err := s.Replicates()
	if err != nil {
		return nil, err
	}
	if r.Rows != p.s.N || r.Sum.Cmp(p.s.SumDiff) != 0 {
		return nil, fmt.Errorf("the streamed pairs (%d) are not those summarized (%d)", r.Rows, p.s.N)
	}
	return r, nil
}

func (p *pushed) ranks(ctx context.Context) (stats.SignedRanks, error) {
	groups, err := p.tx.SignedRanks(ctx, p.leftID, p.rightID, p.metric)
	if err != nil {
		return stats.SignedRanks{}, err
	}
	s := stats.SignedRanks{Zeros: p.s.N - p.s.Greater - p.s.Less, Groups: make([]stats.SignedRankGroup, len(groups))}
	for i, g := range groups {
		s.Groups[i] = stats.SignedRankGroup{Pos: g.Pos, Neg: g.Neg}
	}
	return s, nil
}

// reducible reports whether method reads nothing from the units but what
// a reducer gives: the summary, and replicates when resampling is Poisson.
func reducible(method Method, poisson bool) bool {
	switch method {
	case PairedT:
		return true
	case Bootstrap, Wilcoxon:
		return poisson
	}
	return false
}

// pushDown tries to reduce one metric's pairs on a distributed database:
// it returns nil, and the caller pairs the units, when the evaluations
// have several rows per unit, a value outside fixed point, or (with
// resampling to choose) fewer than PoissonMinUnits units, or when method
// needs the units themselves. poisson says which resampling applies.
func pushDown(ctx context.Context, tx *store.Tx, base, cand *store.Evaluation, metric string, method Method, opts Options) (p *pushed, poisson bool, err error) {
	if !store.OneRowPerUnit(base, cand) || !reducible(method, opts.Resampling != Multinomial) {
		return nil, opts.Resampling == Poisson, nil
	}
	s, err := tx.Summarize(ctx, base.ID, cand.ID, metric, opts.AllowDifferentTargets)
	if err != nil {
		return nil, false, err
	}
	poisson = opts.Resampling == Poisson || opts.Resampling == ResamplingAuto && s.N >= PoissonMinUnits
	if s.Outside > 0 || s.N == 0 || !reducible(method, poisson) {
		return nil, opts.Resampling == Poisson, nil
	}
	return &pushed{tx: tx, leftID: base.ID, rightID: cand.ID, metric: metric, s: s}, poisson, nil
}

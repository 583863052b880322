package server

import (
	"context"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
)

// A recorded comparison belongs to its baseline's experiment: the history
// names it so, and lists it under that experiment. Its candidate may be of
// another experiment, when an unlimited token compared two evaluations by
// their IDs. A token limited to one experiment must not see such a
// comparison, which names the other experiment's run and evaluation: the
// routes that show comparisons keep, for such a token, those whose two
// evaluations are both of its experiment.

// sameExperiment reports whether the candidate of comparison h is of h's
// experiment; of remembers the experiments of the evaluations already
// looked up.
func (s *Server) sameExperiment(ctx context.Context, h *store.HistoryEntry, of map[int64]string) (bool, error) {
	exp, ok := of[h.CandidateID]
	if !ok {
		e, err := s.store.GetEvaluation(ctx, h.CandidateID)
		if err != nil {
			return false, err
		}
		exp = e.Experiment
		of[h.CandidateID] = exp
	}
	return exp == h.Experiment, nil
}

// within returns the comparisons of hist whose two evaluations are both of
// experiment exp, in hist's order.
func (s *Server) within(ctx context.Context, exp string, hist []store.HistoryEntry, of map[int64]string) ([]store.HistoryEntry, error) {
	var kept []store.HistoryEntry
	for i := range hist {
		if hist[i].Experiment != exp {
			continue
		}
		same, err := s.sameExperiment(ctx, &hist[i], of)
		if err != nil {
			return nil, err
		}
		if same {
			kept = append(kept, hist[i])
		}
	}
	return kept, nil
}

// historyFor returns the recorded comparisons f selects that caller c may
// see: all of them for an unlimited token; for a limited one, the newest
// f.Limit (50 when 0) whose two evaluations are both of its experiment.
func (s *Server) historyFor(ctx context.Context, c *caller, f store.HistoryFilter) ([]store.HistoryEntry, error) {
	exp := c.limited()
	if exp == "" {
		return compare.History(ctx, s.store, f)
	}
	want := f.Limit
	if want <= 0 {
		want = 50
	}
	of := map[int64]string{}
	// Comparisons across experiments are rare: the first page nearly
	// always has enough.
	for ask := want; ; ask *= 2 {
		f.Limit = ask
		hist, err := compare.History(ctx, s.store, f)
		if err != nil {
			return nil, err
		}
		kept, err := s.within(ctx, exp, hist, of)
		if err != nil {
			return nil, err
		}
		if len(kept) >= want || len(hist) < ask {
			return kept[:min(len(kept), want)], nil
		}
	}
}

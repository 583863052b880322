package compare

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// HistoryQuery selects recorded comparisons as a user writes the filters;
// empty fields match all.
type HistoryQuery struct {
	Experiment string `req:"experiment" short:"e" arg:"NAME" help:"only comparisons of this experiment"`
	Run        string `req:"run" short:"r" arg:"NAME" help:"only comparisons with this run on either side"`
	Metric     string `req:"metric" short:"m" arg:"METRIC" help:"only this metric"`
	// Winner is baseline, candidate or none.
	Winner string `req:"winner" arg:"SIDE" help:"only comparisons won by this side"`
	// Distinguishable is true or false.
	Distinguishable string `req:"distinguishable" arg:"BOOL" help:"only distinguishable (true) or indistinguishable (false) comparisons"`
	// Since is a date (2026-11-01, or RFC 3339) or an age: a whole number
	// and a unit, d, h or m (30d, 12h, 45m).
	Since string `req:"since" arg:"WHEN" help:"only comparisons since WHEN: a date (2026-11-01), or an age such as 30d or 12h"`
	// Limit is the most comparisons returned; 0 means 50.
	Limit int `req:"limit" short:"n" default:"50" arg:"N" help:"at most N comparisons"`
	// FDR asks for the comparisons' tests in the experiment's online FDR
	// stream, which needs the experiment.
	FDR bool `req:"fdr" help:"show each comparison's test in the experiment's online FDR stream (compare with fdr): its level, whether it rejected, and the wealth"`
}

// Choices lists the values of the query's enumerated fields.
func (HistoryQuery) Choices() map[string][]string {
	return map[string][]string{"winner": {"baseline", "candidate", "none"}, "distinguishable": {"true", "false"}}
}

// Filter checks q and turns it into the store's filter; ages count back
// from now. Bad values return ErrInvalid.
func (q HistoryQuery) Filter(now time.Time) (store.HistoryFilter, error) {
	f := store.HistoryFilter{Experiment: q.Experiment, Run: q.Run, Metric: q.Metric, Limit: q.Limit}
	if q.FDR && q.Experiment == "" {
		return f, invalidf("fdr shows an experiment's online FDR stream: name the experiment")
	}
	switch q.Winner {
	case "", "baseline", "candidate", "none":
		f.Winner = q.Winner
	default:
		return f, invalidf("winner %q: want baseline, candidate or none", q.Winner)
	}
	if d := q.Distinguishable; d != "" {
		b, err := strconv.ParseBool(d)
		if err != nil {
			return f, invalidf("distinguishable %q: want true or false", d)
		}
		f.Distinguishable = &b
	}
	if s := q.Since; s != "" {
		t, err := parseSince(s, now)
		if err != nil {
			return f, err
		}
		f.Since = t
	}
	return f, nil
}

// parseSince reads a date (2006-01-02, or RFC 3339) or an age: a number and
// a unit d, h or m.
func parseSince(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if n, err := strconv.Atoi(strings.TrimRight(s, "dhm")); err == nil && n >= 0 && len(s) > 1 {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[s[len(s)-1]]
		if unit != 0 {
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	return time.Time{}, invalidf("since %q: want a date such as 2026-11-01 or an age such as 30d, 12h or 45m", s)
}

// History returns the recorded comparisons matching f, newest first: every
// comparison Evaluations recorded, and each Holm test of a recorded Rank
// (method "friedman+holm").
func History(ctx context.Context, st *store.Store, f store.HistoryFilter) ([]store.HistoryEntry, error) {
	return st.History(ctx, f)
}

// GetComparison returns one recorded comparison, or store.ErrNotFound.
func GetComparison(ctx context.Context, st *store.Store, id int64) (*store.HistoryEntry, error) {
	return st.GetComparison(ctx, id)
}

// ValuePoint is an evaluation's mean of a metric, with its bootstrap
// interval, at the time it was logged.
type ValuePoint struct {
	Run      string
	LoggedAt time.Time
	Mean     stats.Interval
}

// ValuesOverTime is the mean of metric, with its bootstrap interval, of
// every evaluation on either side of the comparisons in hist, once each,
// in the order they first appear.
func ValuesOverTime(ctx context.Context, st *store.Store, hist []store.HistoryEntry, metric string, opts Options) ([]ValuePoint, error) {
	seen := map[int64]bool{}
	var evals []*store.Evaluation
	for _, h := range hist {
		for _, id := range []int64{h.BaselineID, h.CandidateID} {
			if seen[id] {
				continue
			}
			seen[id] = true
			e, err := st.GetEvaluation(ctx, id)
			if err != nil {
				return nil, err
			}
			evals = append(evals, e)
		}
	}
	points := make([]ValuePoint, len(evals))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, e := range evals {
		g.Go(func() error {
			rm := store.RunMean{EvaluationID: e.ID, Run: e.Run, EvalSet: e.EvalSet, EvalSetID: e.EvalSetID, Units: e.Units, CreatedAt: e.CreatedAt}
			row, err := leaderboardEntry(gctx, st, nil, &rm, metric, opts, nil)
			if err != nil {
				return err
			}
			points[i] = ValuePoint{Run: e.Run, LoggedAt: e.CreatedAt, Mean: row.Mean}
			return nil
		})
	}
	return points, g.Wait()
}

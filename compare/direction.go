package compare

import "slices"

// Direction says which way a metric improves. It is the one place in
// verdict that knows a metric can be lower-is-better: every decision that
// depends on the direction (the winner, the regression gate, counts of
// units that got better or worse, leaderboard order, rank orientation, plot
// colours) asks a Direction, and everything downstream sees only "better"
// and "worse".
type Direction bool

const (
	// HigherIsBetter is the direction of ndcg, recall, accuracy, AUC.
	HigherIsBetter Direction = false
	// LowerIsBetter is the direction of a loss, an error rate, a latency.
	LowerIsBetter Direction = true
)

// DirectionOf is the direction of metric for evaluations that declare their
// lower-is-better metrics: lower is better when any of them says so.
func DirectionOf(metric string, lowerIsBetter ...[]string) Direction {
	for _, l := range lowerIsBetter {
		if slices.Contains(l, metric) {
			return LowerIsBetter
		}
	}
	return HigherIsBetter
}

// Lower reports whether lower values are better.
func (d Direction) Lower() bool { return d == LowerIsBetter }

// Gain turns a value, or a difference of values, into its goodness: x for
// a higher-is-better metric and −x for a lower-is-better one. A positive
// gain of a − b means a is better than b.
func (d Direction) Gain(x float64) float64 {
	if d == LowerIsBetter {
		return -x
	}
	return x
}

// Better reports whether a is strictly better than b.
func (d Direction) Better(a, b float64) bool { return d.Gain(a-b) > 0 }

// Cmp orders a before b when a is better: −1, 0 or +1, for sorting best
// first.
func (d Direction) Cmp(a, b float64) int {
	switch {
	case d.Better(a, b):
		return -1
	case d.Better(b, a):
		return 1
	}
	return 0
}

// String is "higher is better" or "lower is better".
func (d Direction) String() string {
	if d == LowerIsBetter {
		return "lower is better"
	}
	return "higher is better"
}

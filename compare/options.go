package compare

import (
	"math"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

func checkOptions(o Options) error {
	if a := o.alpha(); !(a > 0 && a < 1) {
		return invalidf("alpha must be in (0, 1), got %g", o.Alpha)
	}
	if c := o.confidence(); !(c > 0 && c < 1) {
		return invalidf("confidence must be in (0, 1), got %g", o.Confidence)
	}
	if o.Resamples < 0 || o.Resamples > stats.MaxResamples {
		return invalidf("resamples must be from 1 to %d, got %d: a million already resolves p below 10⁻⁶ and moves an interval's bounds far less than the data's own sampling error; more only costs time and memory",
			stats.MaxResamples, o.Resamples)
	}
	if o.Rope != nil && !(*o.Rope >= 0) {
		return invalidf("the ROPE's half-width must be 0 or more, got %g", *o.Rope)
	}
	if o.Margin != nil && !(*o.Margin > 0 && !math.IsInf(*o.Margin, 1)) {
		return invalidf("a practical margin must be positive and finite, got %g", *o.Margin)
	}
	for m, d := range o.Margins {
		if !(d > 0 && !math.IsInf(d, 1)) {
			return invalidf("the practical margin of %s must be positive and finite, got %g", m, d)
		}
	}
	if o.DecideAt != 0 && !(o.DecideAt >= 0.5 && o.DecideAt < 1) {
		return invalidf("the Bayesian decision's threshold must be in [0.5, 1), got %g", o.DecideAt)
	}
	if _, err := ParseAdjustment(string(o.Adjust)); err != nil {
		return err
	}
	return checkFDR(o)
}

// Resampling is how the bootstrap and the sign-flip test draw their
// replicates.
type Resampling string

const (
	// ResamplingAuto is Multinomial on one server, and Poisson on a
	// distributed database for evaluations of one row per unit and at
	// least PoissonMinUnits paired units.
	ResamplingAuto Resampling = ""
	// Multinomial draws n units with replacement per replicate, and random
	// signs, from seeded random streams: the classic bootstrap.
	Multinomial Resampling = "multinomial"
	// Poisson gives every unit a Poisson(1) weight per replicate, and the
	// sign-flip test a sign, from a hash of its sample ID, the replicate
	// and the seed, so that each shard of a distributed database sums its
	// own units' replicates (stats.Replicates).
	Poisson Resampling = "poisson"
)

// AutoTMinUnits is the fewest units for which a comparison that names no
// method (and no resampling, no number of replicates) runs the paired t of
// the exact sums instead of the bootstrap: both evaluations must have at
// least this many units, of one row each. From here on the t and the
// default bootstrap decide alike on at least 99.5 % of simulated data sets,
// their intervals lie a median 1.1 to 2.0 % of the t interval's width apart
// (the bootstrap's own resampling noise at B = 2000), and both are
// calibrated, for 0/1 values, zero-inflated ndcg-like values, heavy ties
// and skewed values (docs/calibration.md, "The t and the bootstrap by n").
// The t reads each unit once; on a distributed database its sums reach the
// coordinator as a few hundred bytes.
const AutoTMinUnits = 10_000

// AutoChoice says why a comparison chose its method itself.
type AutoChoice struct {
	// Method is the method chosen: PairedT.
	Method Method `json:"method"`
	// Units is the fewer of the two evaluations' units, and MinUnits the
	// least for which the rule chooses Method (AutoTMinUnits).
	Units    int64 `json:"units"`
	MinUnits int64 `json:"min_units"`
}

// autoMethod is the method a comparison of base and cand runs when it
// names none and their protocols ask for the bootstrap: the paired t from
// AutoTMinUnits units of one row each, unless the options ask for the
// bootstrap's resampling or replicates; nil keeps the bootstrap.
func autoMethod(base, cand *store.Evaluation, opts Options) *AutoChoice {
	units := min(base.Units, cand.Units)
	if opts.Resampling != ResamplingAuto || opts.Resamples != 0 || !store.OneRowPerUnit(base, cand) || units < AutoTMinUnits {
		return nil
	}
	return &AutoChoice{Method: PairedT, Units: units, MinUnits: AutoTMinUnits}
}

// PoissonMinUnits is the fewest paired units for which ResamplingAuto
// chooses the Poisson bootstrap on a distributed database. Below it the
// number of units a replicate draws varies enough (its standard deviation
// is √n) to widen the interval against the multinomial bootstrap's, and
// the pairs are few enough to move to the coordinator; docs/scale-out.md
// shows both intervals side by side.
const PoissonMinUnits = 1000

// Package compare holds every decision verdict's front ends ask for: is one
// evaluation distinguishably better than another (Evaluations, Scores), how
// do the runs of an experiment rank (NewLeaderboard, Rank, RankAcrossSets),
// which units moved most (Diff), what was decided before (History), and an
// experiment's whole state (Summarize). The command line, the demo, the
// HTML report and the HTTP server all call these functions, so that no
// front end re-implements a decision.
//
// It reads evaluations through package store and tests them with package
// stats. It writes no words: results are structs, and package report turns
// them into sentences, tables and plots. Where a result is stored with its
// sentence (the comparison history), the caller passes report's sentence
// writer in the options.
//
// # Direction
//
// A metric is higher-is-better unless an evaluation was logged with it as
// lower-is-better. The Direction type is the one place that knows this.
// Every decision asks it: the winner, the regression gate
// (MetricResult.Regression), the counts of units where the candidate is
// better or worse, leaderboard order, the orientation of Friedman's ranks
// and which side a plot colours as better. Results say "baseline",
// "candidate", "better" and "worse"; nothing downstream flips a sign.
//
// # Conventions
//
// Every difference is baseline − candidate (left − right, as package stats
// computes it): the reference minus each run in a leaderboard, the baseline
// minus the candidate per unit in a diff.
//
// A difference is distinguishable only when its p-value, adjusted across
// the metrics compared together, is below alpha and its interval excludes
// zero (stats.Decide). Otherwise there is no winner, however far apart the
// means.
//
// Per-unit values are stored in single precision (PostgreSQL real). Two
// values within that precision of each other, |a − b| ≤ 2⁻²³·max(|a|, |b|),
// are treated as equal everywhere: in the counts, the interval, the tests
// and the sample-size hint. Numerically equal means therefore read as
// equal, never as a gap that would take billions of units to detect.
//
// The sample-size hint (MetricResult.NRequired) is the paired test's normal
// approximation at the observed variance of the per-unit differences,
// n = (z_{1−α/2} + z_{0.8})²·Var(d)/δ², rounded up to two significant
// figures: an order of magnitude, not a count. The fold-based tests and
// DeLong give none.
package compare

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
// # Margins
//
// A practical margin Δ > 0 (Options.Margin, Options.Margins; Options.Rope
// where neither gives one) is a gap, in the metric's units, by which the
// candidate may be worse and still be acceptable. "Worse" follows the
// Direction: for a lower-is-better metric, worse means higher. With a
// margin, each metric's MarginDecision is the first of these that holds:
//
//   - superior: the candidate is the distinguishable winner, by the rule
//     above;
//   - equivalent: both one-sided tests at alpha reject (TOST): it is
//     worse by less than Δ and better by less than Δ;
//   - non_inferior: it is worse by less than Δ: the one-sided upper bound
//     at alpha of how much worse it is lies below Δ;
//   - inferior: it is worse by more than Δ: the one-sided lower bound at
//     alpha lies above Δ;
//   - inconclusive: none of these.
//
// Equivalent implies non-inferior, a real gain smaller than Δ is both
// superior and equivalent (and reads superior), and inferior excludes the
// others. The one-sided bounds at alpha are those of the (1 − 2α)
// two-sided interval (MarginTest.Worse). The paired t and the corrected t
// test each side with a one-sided t (stats.TOST, statsmodels'
// ttost_paired), whose p-values decide and agree with the bounds. The
// bootstrap methods (bootstrap, wilcoxon, mcnemar, 5x2, predictions) take
// the bounds from the quantiles of the comparison's own bootstrap
// replicates: the sign-flip test is not shifted by the margin, so their
// margin decision is the interval's. DeLong uses its normal interval. The
// margin tests are each metric's own at the requested alpha, not adjusted
// across metrics nor held to an online FDR level. With k-fold evaluations
// the margin is also the Bayesian correlated t's region of practical
// equivalence. The gates FailOnRegressionBeyondMargin (inferior) and
// FailOnUnprovenNonInferiority (anything but superior, equivalent or
// non-inferior) decide against it.
//
// The sample-size hint (MetricResult.NRequired) is the paired test's normal
// approximation at the observed variance of the per-unit differences,
// n = (z_{1−α/2} + z_{0.8})²·Var(d)/δ², rounded up to two significant
// figures: an order of magnitude, not a count. The fold-based tests and
// DeLong give none.
package compare

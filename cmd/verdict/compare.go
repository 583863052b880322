package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "is the winner real? pair two evaluations user by user and test the difference",
		ArgsUsage: "BASELINE CANDIDATE",
		Description: `compare pairs two logged evaluations unit by unit (sample ID) inside
PostgreSQL, and decides for each metric whether they differ: a paired
bootstrap interval of the mean difference plus a paired sign-flip
randomization test. A difference is distinguishable only when p < alpha
AND the interval excludes zero. Differences are BASELINE - CANDIDATE.

BASELINE and CANDIDATE are evaluation IDs, or run names with --experiment
(the run's newest evaluation on --eval-set, or on its only evaluation set).
Evaluations scored against different targets are refused unless
--allow-different-targets compares the units they share.

Protocols recorded at log time choose the test: k-fold and repeated k-fold
evaluations (one unit per fold, with --n-train and --n-test) get the
corrected resampled t (and --rope adds the Bayesian correlated t); 5x2
evaluations (10 folds whose sample IDs sort repetition-major, e.g. r1f1,
r1f2, r2f1, ...) get Dietterich's 5x2cv t. --method mcnemar suits 0/1
correctness metrics; --method delong compares the AUCs of per-sample scores
against the 0/1 labels logged with 'verdict log --labels'.

With several metrics, p-values are adjusted for multiplicity (--adjust, holm
by default) and the report shows both. Every comparison is recorded in the
history with its parameters and outputs (--no-record skips this); the same
seed reproduces it exactly.

In CI, --fail-on regression exits 1 when the candidate is distinguishably
worse on any metric after adjustment, --fail-on difference on any
distinguishable difference; 0 otherwise, 2 on errors:

  verdict compare -e movielens --metric ndcg@20 --fail-on regression --format markdown main pr-1234

Flags go before BASELINE and CANDIDATE.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "experiment `NAME` of runs named as BASELINE and CANDIDATE"},
			&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "evaluation set `NAME` of the runs' evaluations"},
			&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to compare (repeatable; default: every metric both share)"},
			&cli.StringFlag{Name: "method", Usage: "`TEST`: bootstrap (interval + randomization test), t (paired t), wilcoxon (signed rank) or mcnemar (0/1 correctness), the last two with the bootstrap interval; default bootstrap, or the corrected resampled t for k-fold evaluations"},
			&cli.Float64Flag{Name: "rope", Usage: "with k-fold evaluations, add the Bayesian correlated t's probabilities for a region of practical equivalence of half-width `R`"},
			alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
			&cli.StringFlag{Name: "adjust", Usage: "multiplicity `ADJUSTMENT`: holm, bonferroni, bh, by or none (default: holm with several metrics)"},
			&cli.BoolFlag{Name: "allow-different-targets", Usage: "compare the units two evaluations share even when their targets differ"},
			&cli.StringFlag{Name: "fail-on", Usage: "exit 1 on a distinguishable `CHANGE`: regression or difference"},
			reportFormatFlag(),
			plotFlag("a forest plot of the differences, one row per metric"),
			&cli.BoolFlag{Name: "no-record", Usage: "do not record the comparison in the history"},
		},
		Action: runCompare,
	}
}

// metricComparison is the outcome of one metric.
type metricComparison struct {
	Metric          string             `json:"metric"`
	LowerIsBetter   bool               `json:"lower_is_better"`
	Method          string             `json:"method"`
	N               int                `json:"n"`
	BaselineOnly    int64              `json:"n_baseline_only"`
	CandidateOnly   int64              `json:"n_candidate_only"`
	BaselineMean    float64            `json:"baseline_mean"`
	CandidateMean   float64            `json:"candidate_mean"`
	Difference      stats.Interval     `json:"difference"`
	PValue          float64            `json:"p_value"`
	PAdjusted       float64            `json:"p_adjusted"`
	Adjustment      string             `json:"adjustment"`
	Alpha           float64            `json:"alpha"`
	Distinguishable bool               `json:"distinguishable"`
	Winner          string             `json:"winner"` // "baseline", "candidate" or ""
	Wins            int                `json:"wins"`
	Losses          int                `json:"losses"`
	Ties            int                `json:"ties"`
	NRequired       *int               `json:"n_required"`
	Verdict         string             `json:"verdict"`
	Bayes           *stats.BayesResult `json:"bayes,omitempty"`
	ComparisonID    *int64             `json:"comparison_id"`
	raw             stats.Comparison   `json:"-"`
}

func runCompare(c *cli.Context) error {
	if c.NArg() != 2 {
		return userError("compare takes BASELINE and CANDIDATE, got %d arguments (see 'verdict compare --help')", c.NArg())
	}
	format, err := reportFormat(c)
	if err != nil {
		return err
	}
	failOn := c.String("fail-on")
	if failOn != "" && failOn != "regression" && failOn != "difference" {
		return userError("--fail-on %q: want regression or difference", failOn)
	}
	if err := checkPlotPath(c); err != nil {
		return err
	}
	method := c.String("method")
	if method != "" && !slices.Contains([]string{"bootstrap", "t", "wilcoxon", "mcnemar", "delong"}, method) {
		return userError("--method %q: want bootstrap, t, wilcoxon, mcnemar or delong", method)
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	base, err := resolveEvaluation(c, st, c.Args().Get(0))
	if err != nil {
		return err
	}
	cand, err := resolveEvaluation(c, st, c.Args().Get(1))
	if err != nil {
		return err
	}
	metrics := c.StringSlice("metric")
	if len(metrics) == 0 {
		for _, m := range base.Metrics {
			if slices.Contains(cand.Metrics, m) {
				metrics = append(metrics, m)
			}
		}
		if len(metrics) == 0 {
			return userError("evaluations %d and %d share no metric (%s; %s)", base.ID, cand.ID, strings.Join(base.Metrics, ", "), strings.Join(cand.Metrics, ", "))
		}
	}
	adjust := c.String("adjust")
	if adjust == "" {
		adjust = "none"
		if len(metrics) > 1 {
			adjust = "holm"
		}
	}
	if !slices.Contains([]string{"holm", "bonferroni", "bh", "by", "none"}, adjust) {
		return userError("--adjust %q: want holm, bonferroni, bh, by or none", adjust)
	}

	set := compareSettings{
		opts: stats.CompareOptions{Alpha: c.Float64("alpha"), Confidence: c.Float64("confidence"),
			Resamples: c.Int("resamples"), Seed: c.Uint64("seed"), LeftName: "baseline", RightName: "candidate"},
		method: method, adjust: adjust, intersect: c.Bool("allow-different-targets"), record: !c.Bool("no-record"),
	}
	if c.IsSet("rope") {
		rope := c.Float64("rope")
		set.rope = &rope
	}
	switch {
	case method != "":
	case isKFold(base) && isKFold(cand):
		set.method = "corrected-t"
	case base.Protocol.Name == "5x2" && cand.Protocol.Name == "5x2":
		set.method = "5x2"
	default:
		set.method = "bootstrap"
	}
	results, err := compareEvaluations(c.Context, st, base, cand, metrics, set)
	if err != nil {
		return err
	}
	if err := printComparisons(c.App.Writer, format, base, cand, results); err != nil {
		return err
	}
	if path := c.String("plot"); path != "" {
		if err := savePlot(c, path, func() (*report.Figure, error) {
			rows := make([]report.ForestRow, len(results))
			for i, r := range results {
				d := r.Difference
				rows[i] = report.ForestRow{Label: r.Metric, Estimate: d.Estimate, Low: d.Low, High: d.High, Distinguishable: r.Distinguishable}
			}
			return report.Forest(fmt.Sprintf("%s minus %s", base.Run, cand.Run),
				fmt.Sprintf("baseline − candidate, %g%% CI (filled: distinguishable)", 100*results[0].Difference.Confidence), rows)
		}); err != nil {
			return err
		}
	}
	for _, r := range results {
		worse := r.Distinguishable && r.Winner == "baseline"
		if (failOn == "regression" && worse) || (failOn == "difference" && r.Distinguishable) {
			return cli.Exit(fmt.Sprintf("the candidate is distinguishably %s on %s (--fail-on %s)", map[bool]string{true: "worse", false: "different"}[worse], r.Metric, failOn), exitGate)
		}
	}
	return nil
}

// compareSettings are the parameters of a comparison.
type compareSettings struct {
	opts      stats.CompareOptions
	method    string // bootstrap or t
	adjust    string // holm, bonferroni, bh, by or none
	intersect bool
	record    bool
	rope      *float64 // Bayesian correlated t with this ROPE (k-fold)
}

func isKFold(e *store.Evaluation) bool {
	return e.Protocol.Name == "kfold" || e.Protocol.Name == "repeated_kfold"
}

// compareEvaluations compares two evaluations on each metric, adjusts for
// multiplicity, and records the results when asked.
func compareEvaluations(ctx context.Context, st *store.Store, base, cand *store.Evaluation, metrics []string, set compareSettings) ([]*metricComparison, error) {
	var results []*metricComparison
	// One transaction pairs every metric and records the results.
	err := st.InTx(ctx, func(tx *store.Tx) error {
		results = nil
		for _, m := range metrics {
			opts := set.opts
			opts.Metric = m
			r, err := compareMetric(ctx, tx, base, cand, m, set, opts)
			if err != nil {
				return err
			}
			results = append(results, r)
		}
		if err := applyAdjustment(results, set.adjust); err != nil {
			return err
		}
		if set.record {
			for _, r := range results {
				id, err := tx.RecordComparison(ctx, record(base, cand, r, set.opts, set.method))
				if err != nil {
					return err
				}
				r.ComparisonID = &id
			}
		}
		return nil
	})
	return results, err
}

// resolveEvaluation reads an evaluation ID, or a run name of --experiment.
func resolveEvaluation(c *cli.Context, st *store.Store, arg string) (*store.Evaluation, error) {
	if id, err := strconv.ParseInt(arg, 10, 64); err == nil && c.String("experiment") == "" {
		e, err := st.GetEvaluation(c.Context, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, userError("no evaluation %d", id)
		}
		return e, err
	}
	if c.String("experiment") == "" {
		return nil, userError("%q is not an evaluation ID: name runs with --experiment", arg)
	}
	e, err := st.LatestEvaluation(c.Context, c.String("experiment"), arg, c.String("eval-set"))
	if err != nil {
		return nil, cli.Exit(err.Error(), exitError)
	}
	return e, nil
}

// compareMetric pairs and tests one metric.
func compareMetric(ctx context.Context, tx *store.Tx, base, cand *store.Evaluation, metric string, set compareSettings, opts stats.CompareOptions) (*metricComparison, error) {
	method := set.method
	p, err := tx.Pair(ctx, base.ID, cand.ID, metric, set.intersect)
	if err != nil {
		if errors.Is(err, store.ErrNotComparable) || errors.Is(err, store.ErrUnknownMetric) {
			return nil, cli.Exit(err.Error(), exitError)
		}
		return nil, err
	}
	if len(p.SampleIDs) == 0 {
		return nil, userError("evaluations %d and %d share no unit on %s", base.ID, cand.ID, metric)
	}
	left, right, units, err := unitRows(p)
	if err != nil {
		return nil, userError("evaluations %d and %d on %s: %v", base.ID, cand.ID, metric, err)
	}
	cmp, err := stats.CompareUnits(left, right, units, opts)
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("%s: %v", metric, err), exitError)
	}
	r := &metricComparison{
		Metric: metric, Method: "bootstrap+randomization",
		LowerIsBetter: slices.Contains(base.LowerIsBetter, metric) || slices.Contains(cand.LowerIsBetter, metric),
		N:             cmp.N, BaselineOnly: p.LeftOnly, CandidateOnly: p.RightOnly,
		BaselineMean: cmp.LeftMean, CandidateMean: cmp.RightMean, Difference: cmp.Difference,
		PValue: cmp.PValue, PAdjusted: cmp.PValue, Alpha: cmp.Alpha,
		Wins: cmp.Wins, Losses: cmp.Losses, Ties: cmp.Ties, NRequired: cmp.NRequired,
		Verdict: cmp.Verdict, raw: cmp,
	}
	switch method {
	case "t":
		t, err := stats.PairedT(left, right, stats.PairedTOptions{Confidence: opts.Confidence})
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: %v", metric, err), exitError)
		}
		r.Method = "paired-t"
		r.Difference = stats.Interval{Estimate: t.MeanDiff, Low: t.CILow, High: t.CIHigh, Confidence: cmp.Difference.Confidence}
		r.PValue, r.PAdjusted = t.PValue, t.PValue
		r.Verdict = fmt.Sprintf("paired t: difference %s (%g%% CI), %s, n = %d.",
			report.Interval(t.MeanDiff, t.CILow, t.CIHigh, true), 100*r.Difference.Confidence, report.PText(t.PValue), t.N)
	case "wilcoxon":
		w, err := stats.Wilcoxon(left, right, stats.WilcoxonOptions{})
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: %v", metric, err), exitError)
		}
		r.Method = "wilcoxon+bootstrap-interval"
		r.PValue, r.PAdjusted = w.PValue, w.PValue
		r.Verdict = fmt.Sprintf("Wilcoxon signed-rank (%s): W+ = %g, W- = %g, %s; difference %s (bootstrap %g%% CI), n = %d.",
			w.Mode, w.WPlus, w.WMinus, report.PText(w.PValue), intervalOf(r.Difference), 100*r.Difference.Confidence, w.N)
	case "mcnemar":
		if draws := units != nil; draws {
			return nil, userError("--method mcnemar pairs one 0/1 outcome per unit; evaluations %d and %d have several rows per unit", base.ID, cand.ID)
		}
		m, err := stats.McNemar(left, right, stats.McNemarOptions{})
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: %v (--method mcnemar needs a 0/1 correctness metric)", metric, err), exitError)
		}
		r.Method = "mcnemar+bootstrap-interval"
		r.PValue, r.PAdjusted = m.PValue, m.PValue
		r.Verdict = fmt.Sprintf("McNemar (%s): %d units right only for the baseline, %d only for the candidate, %s; accuracy difference %s (bootstrap %g%% CI), n = %d.",
			m.Mode, m.B, m.C, report.PText(m.PValue), intervalOf(r.Difference), 100*r.Difference.Confidence, r.N)
	case "delong":
		labels, err := tx.Labels(ctx, base.EvalSetID)
		if err != nil {
			return nil, err
		}
		if units != nil {
			return nil, userError("--method delong scores one row per sample; evaluations %d and %d have several", base.ID, cand.ID)
		}
		y := make([]float64, len(p.SampleIDs))
		for i, id := range p.SampleIDs {
			l, ok := labels[id]
			if !ok {
				return nil, userError("sample %q has no label recorded with evaluation set %q: log the evaluation with --labels", id, base.EvalSet)
			}
			y[i] = float64(l)
		}
		d, err := stats.DeLong(y, left, right, stats.DeLongOptions{Confidence: opts.Confidence})
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: %v", metric, err), exitError)
		}
		r.Method = "delong"
		r.BaselineMean, r.CandidateMean = d.AUCLeft, d.AUCRight
		r.Difference = stats.Interval{Estimate: d.Diff, Low: d.CILow, High: d.CIHigh, Confidence: cmp.Difference.Confidence}
		r.PValue, r.PAdjusted = d.PValue, d.PValue
		r.Verdict = fmt.Sprintf("DeLong: AUC %s (baseline) vs %s (candidate), difference %s (%g%% CI), z = %s, %s, n = %d.",
			report.Num(d.AUCLeft), report.Num(d.AUCRight), intervalOf(r.Difference), 100*r.Difference.Confidence, report.Num(d.Z), report.PText(d.PValue), len(y))
	case "5x2":
		if len(left) != 10 || units != nil {
			return nil, userError("5x2 evaluations %d and %d must share 10 folds of one row each, got %d units", base.ID, cand.ID, len(p.SampleIDs))
		}
		diffs := make([]float64, 10)
		for i := range diffs {
			diffs[i] = left[i] - right[i]
		}
		f, err := stats.FiveByTwoCVT(diffs)
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: %v", metric, err), exitError)
		}
		r.Method = "5x2cv-t+bootstrap-interval"
		r.PValue, r.PAdjusted = f.PValue, f.PValue
		r.Verdict = fmt.Sprintf("5x2cv paired t (Dietterich; folds in sample ID order %s, ...): t = %s (df %d), %s; mean fold difference %s (bootstrap %g%% CI).",
			strings.Join(p.SampleIDs[:3], ", "), report.Num(f.T), f.DF, report.PText(f.PValue), intervalOf(r.Difference), 100*r.Difference.Confidence)
	case "corrected-t":
		nTrain, nTest := base.Protocol.NTrain, base.Protocol.NTest
		if nTrain <= 0 || nTest <= 0 {
			return nil, userError("evaluation %d is k-fold but has no --n-train/--n-test recorded, which the corrected resampled t needs", base.ID)
		}
		ct, err := stats.CorrectedResampledT(left, right, stats.CorrectedTOptions{NTrain: int(nTrain), NTest: int(nTest)})
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: %v", metric, err), exitError)
		}
		r.Method = "corrected-t"
		r.Difference = tInterval(ct.MeanDiff, ct.T, ct.DF, cmp.Difference.Confidence)
		r.PValue, r.PAdjusted = ct.PValue, ct.PValue
		r.Verdict = fmt.Sprintf("corrected resampled t (Nadeau & Bengio, %d folds, n_train %d, n_test %d): difference %s (%g%% CI), t = %s, %s.",
			ct.N, nTrain, nTest, intervalOf(r.Difference), 100*r.Difference.Confidence, report.Num(ct.T), report.PText(ct.PValue))
		if set.rope != nil {
			b, err := stats.BayesCorrelatedT(left, right, stats.BayesOptions{NTrain: int(nTrain), NTest: int(nTest), Rope: *set.rope})
			if err != nil {
				return nil, cli.Exit(fmt.Sprintf("%s: %v", metric, err), exitError)
			}
			r.Bayes = &b
			r.Verdict += fmt.Sprintf(" Bayesian correlated t with a ROPE of %g: P(baseline better) = %.3f, P(equivalent) = %.3f, P(candidate better) = %.3f.",
				*set.rope, b.PLeftBetter, b.PEquivalent, b.PRightBetter)
		}
	}
	return r, nil
}

// tInterval is the interval mean ± t_{df, 1-(1-confidence)/2} · se, with
// the standard error implied by a t statistic: se = |mean / t|. With t = 0
// or infinite it is the point itself.
func tInterval(mean, t float64, df int, confidence float64) stats.Interval {
	in := stats.Interval{Estimate: mean, Low: mean, High: mean, Confidence: confidence}
	if t == 0 || math.IsInf(t, 0) || math.IsNaN(t) || df < 1 {
		return in
	}
	se := math.Abs(mean / t)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-confidence)/2)
	in.Low, in.High = mean-q*se, mean+q*se
	return in
}

// unitRows turns paired unit sums into the rows stats.CompareUnits takes.
// Without draws every unit is one row. With draws, each unit becomes its
// row count of rows at its mean, on each side: the cluster bootstrap and the
// unit sign flip then see exactly the units' sums and counts. Both sides must
// have the same number of rows for a unit.
func unitRows(p *store.Pairs) (left, right []float64, units []string, err error) {
	if !p.Draws() {
		return p.LeftSum, p.RightSum, nil, nil
	}
	for i, id := range p.SampleIDs {
		n := p.LeftRows[i]
		if p.RightRows[i] != n {
			return nil, nil, nil, fmt.Errorf("unit %q has %d rows in the baseline and %d in the candidate; draws must match to pair", id, n, p.RightRows[i])
		}
		lm, rm := p.LeftSum[i]/float64(n), p.RightSum[i]/float64(n)
		for range n {
			left, right, units = append(left, lm), append(right, rm), append(units, id)
		}
	}
	return left, right, units, nil
}

// applyAdjustment adjusts the p-values across metrics and decides each
// metric: distinguishable when the adjusted p is below alpha and the
// interval excludes zero; the winner is the better side for the metric's
// direction.
func applyAdjustment(results []*metricComparison, adjust string) error {
	if adjust != "none" {
		ps := make([]float64, len(results))
		for i, r := range results {
			ps[i] = r.PValue
		}
		adj, err := stats.AdjustPValues(ps, stats.AdjustMethod(adjust))
		if err != nil {
			return err
		}
		for i, r := range results {
			r.PAdjusted, r.Adjustment = adj.Adjusted[i], adjust
		}
	}
	for _, r := range results {
		r.Distinguishable = r.PAdjusted < r.Alpha && r.Difference.ExcludesZero()
		r.Winner = ""
		if r.Distinguishable {
			baselineHigher := r.Difference.Estimate > 0
			if baselineHigher != r.LowerIsBetter {
				r.Winner = "baseline"
			} else {
				r.Winner = "candidate"
			}
		}
		if r.Adjustment != "" && r.raw.Distinguishable != r.Distinguishable {
			r.Verdict += fmt.Sprintf(" After %s adjustment across %d metrics %s, so the difference is %s.",
				r.Adjustment, len(results), report.PText(r.PAdjusted), map[bool]string{true: "distinguishable", false: "not distinguishable"}[r.Distinguishable])
		}
		if r.LowerIsBetter {
			r.Verdict += " Lower is better for this metric."
		}
	}
	return nil
}

func record(base, cand *store.Evaluation, r *metricComparison, opts stats.CompareOptions, method string) store.ComparisonRecord {
	winner := map[string]string{"baseline": "left", "candidate": "right"}[r.Winner]
	rec := store.ComparisonRecord{
		LeftID: base.ID, RightID: cand.ID, Metric: r.Metric, LowerIsBetter: r.LowerIsBetter,
		Method: r.Method, Resamples: opts.Resamples, Seed: opts.Seed, Confidence: r.Difference.Confidence,
		Alpha: r.Alpha, Adjustment: r.Adjustment, N: int64(r.N), LeftOnly: r.BaselineOnly, RightOnly: r.CandidateOnly,
		LeftMean: r.BaselineMean, RightMean: r.CandidateMean, Estimate: r.Difference.Estimate,
		Low: r.Difference.Low, High: r.Difference.High, PValue: r.PValue, PAdjusted: r.PAdjusted,
		Distinguishable: r.Distinguishable, Winner: winner, Wins: int64(r.Wins), Losses: int64(r.Losses), Ties: int64(r.Ties),
		Verdict: r.Verdict,
		Parameters: map[string]any{"method": method, "resamples": opts.Resamples, "seed": opts.Seed,
			"alpha": opts.Alpha, "confidence": opts.Confidence, "adjustment": r.Adjustment},
		Outputs: r,
	}
	if r.NRequired != nil {
		n := int64(*r.NRequired)
		rec.NRequired = &n
	}
	return rec
}

func printComparisons(w io.Writer, format string, base, cand *store.Evaluation, results []*metricComparison) error {
	if format == "json" {
		return writeJSON(w, toOrderedValue(results))
	}
	t := report.Table{
		Header: []string{"METRIC", "BASELINE", "CANDIDATE", "DIFFERENCE [CI]", "P", "P ADJ", "DISTINGUISHABLE", "WINNER", "W/L/T", "N"},
		Right:  map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 9: true},
	}
	var means []float64
	for _, r := range results {
		means = append(means, r.BaselineMean, r.CandidateMean)
	}
	meanText := report.Nums(means, false)
	for i, r := range results {
		padj := "-"
		if r.Adjustment != "" {
			padj = report.P(r.PAdjusted)
		}
		winner := r.Winner
		if winner == "" {
			winner = "none"
		}
		t.Add(r.Metric, meanText[2*i], meanText[2*i+1],
			report.Interval(r.Difference.Estimate, r.Difference.Low, r.Difference.High, true),
			report.P(r.PValue), padj, strconv.FormatBool(r.Distinguishable), winner,
			fmt.Sprintf("%d/%d/%d", r.Wins, r.Losses, r.Ties), strconv.Itoa(r.N))
		switch r.Winner {
		case "candidate":
			t.Mark(7, report.Good)
		case "baseline":
			t.Mark(7, report.Bad)
		default:
			t.Mark(7, report.Dim)
		}
	}
	switch format {
	case "csv":
		return comparisonsCSV(results).CSV(w)
	case "markdown":
		fmt.Fprintf(w, "**verdict compare**: baseline `%s/%s` (evaluation %d) vs candidate `%s/%s` (evaluation %d) on `%s`; difference = baseline − candidate\n\n",
			base.Experiment, base.Run, base.ID, cand.Experiment, cand.Run, cand.ID, base.EvalSet)
		if err := t.Markdown(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
		for _, r := range results {
			fmt.Fprintf(w, "- **%s**: %s\n", r.Metric, r.Verdict)
		}
		return nil
	}
	fmt.Fprintf(w, "baseline: evaluation %d (%s/%s on %s)\ncandidate: evaluation %d (%s/%s on %s)\ndifference = baseline - candidate\n\n",
		base.ID, base.Experiment, base.Run, base.EvalSet, cand.ID, cand.Experiment, cand.Run, cand.EvalSet)
	if err := t.Write(w, "table"); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range results {
		fmt.Fprintf(w, "%s: %s\n", report.Paint(t.Color, report.Strong, r.Metric), r.Verdict)
		if r.ComparisonID != nil {
			fmt.Fprintf(w, "  (recorded as comparison %d)\n", *r.ComparisonID)
		}
	}
	return nil
}

// intervalOf formats a signed interval as "+0.012 [+0.003, +0.021]".
func intervalOf(i stats.Interval) string { return report.Interval(i.Estimate, i.Low, i.High, true) }

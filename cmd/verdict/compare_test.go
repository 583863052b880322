package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store/storetest"
)

// logScores logs one run's scores of 200 users: metric a is i%5/4 plus the
// run's shift on every third user, metric b is the same for both runs.
func logScores(t *testing.T, url, run string, shift float64, extra ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("sample_id,a,b\n")
	for i := range 200 {
		a := float64(i%5) / 4
		if i%3 == 0 {
			a += shift
		}
		fmt.Fprintf(&b, "u%03d,%g,%g\n", i, a, float64(i%7)/8)
	}
	path := filepath.Join(t.TempDir(), run+".csv")
	require.NoError(t, writeFileErr(path, b.String()))
	args := append([]string{"log", "-e", "exp", "-r", run, "-s", "test"}, extra...)
	res := runVerdict(t, url, append(args, path)...)
	require.Equal(t, 0, res.code, res.stderr)
}

func TestCompareEndToEnd(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "base", 0)
	logScores(t, url, "worse", -0.25) // a third of the users lose 0.25 on a

	res := runVerdict(t, url, "compare", "-e", "exp", "--format", "json", "base", "worse")
	require.Equal(t, 0, res.code, res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Len(t, out, 2)
	a, b := out[0], out[1]
	require.Equal(t, "a", a.Metric)
	require.Equal(t, 200, a.N)
	// 67 of 200 users (i%3 == 0) differ by exactly +0.25: mean difference 67*0.25/200.
	require.InDelta(t, 67*0.25/200, a.Difference.Estimate, 1e-9)
	require.True(t, a.Distinguishable)
	require.Equal(t, compare.Baseline, a.Winner)
	require.Equal(t, "holm", a.Adjustment)
	require.Equal(t, 67, a.CandidateWorse)
	require.Equal(t, 133, a.Same)
	// b is identical in both runs: difference 0, p = 1.
	require.Equal(t, 0.0, b.Difference.Estimate)
	require.Equal(t, 1.0, b.PValue)
	require.False(t, b.Distinguishable)
	require.Nil(t, b.NRequired)
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM comparisons`))

	// The same seed reproduces the recorded numbers exactly.
	res = runVerdict(t, url, "compare", "-e", "exp", "--format", "json", "--metric", "a", "base", "worse")
	require.Equal(t, 0, res.code, res.stderr)
	var again []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &again))
	require.Equal(t, a.Difference, again[0].Difference)
	require.Equal(t, a.PValue, again[0].PValue)
	recorded := storetest.Scalar[float64](t, url, `SELECT ci_low FROM comparisons WHERE id = 1`)
	require.Equal(t, a.Difference.Low, recorded)

	// CI gates: the candidate is worse on a.
	res = runVerdict(t, url, "compare", "-e", "exp", "--fail-on", "regression", "--no-record", "base", "worse")
	require.Equal(t, 1, res.code)
	require.Contains(t, res.stderr, "the candidate is distinguishably worse on a (--fail-on regression)")
	res = runVerdict(t, url, "compare", "-e", "exp", "--fail-on", "regression", "--no-record", "worse", "base")
	require.Equal(t, 0, res.code, "better is not a regression")
	res = runVerdict(t, url, "compare", "-e", "exp", "--fail-on", "difference", "--no-record", "worse", "base")
	require.Equal(t, 1, res.code)

	// An evaluation against itself.
	res = runVerdict(t, url, "compare", "--format", "json", "--no-record", "1", "1")
	require.Equal(t, 0, res.code, res.stderr)
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	for _, r := range out {
		require.Equal(t, 0.0, r.Difference.Estimate)
		require.Equal(t, 1.0, r.PValue)
		require.False(t, r.Distinguishable)
	}
	require.Equal(t, 3, queryInt(t, url, `SELECT count(*) FROM comparisons`))
}

func TestCompareRefusesDifferentTargets(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "one", 0, "--target-fingerprint", strings.Repeat("1", 64))
	logScores(t, url, "two", 0, "--target-fingerprint", strings.Repeat("2", 64))

	res := runVerdict(t, url, "compare", "-e", "exp", "one", "two")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "were scored on different evaluation sets or targets; --allow-different-targets compares the units they share")

	res = runVerdict(t, url, "compare", "-e", "exp", "--allow-different-targets", "--format", "json", "--no-record", "one", "two")
	require.Equal(t, 0, res.code, res.stderr)
}

func TestHistoryAndShow(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "base", 0)
	logScores(t, url, "worse", -0.25)
	res := runVerdict(t, url, "compare", "-e", "exp", "base", "worse")
	require.Equal(t, 0, res.code, res.stderr)

	res = runVerdict(t, url, "history", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var all []map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &all))
	require.Len(t, all, 2)
	require.Equal(t, "b", all[0]["metric"], "newest first")

	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"--metric", "a"}, 1},
		{[]string{"--winner", "baseline"}, 1},
		{[]string{"--winner", "none"}, 1},
		{[]string{"--distinguishable", "true"}, 1},
		{[]string{"--run", "worse"}, 2},
		{[]string{"--experiment", "other"}, 0},
		{[]string{"--since", "1d"}, 2},
		{[]string{"--since", "2000-01-01", "--limit", "1"}, 1},
	} {
		res = runVerdict(t, url, append([]string{"history", "--format", "json"}, tt.args...)...)
		require.Equal(t, 0, res.code, res.stderr)
		var got []map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &got))
		require.Len(t, got, tt.want, "%v", tt.args)
	}

	res = runVerdict(t, url, "show", "comparison", "1")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "winner                   baseline")
	require.Contains(t, res.stdout, "baseline_run             base")
	res = runVerdict(t, url, "show", "comparison", "99")
	require.Equal(t, 2, res.code)
	require.Equal(t, "verdict: no comparison 99\n", res.stderr)
}

// TestCompareDrawsResamplesUnits logs evaluations with three draws per user
// and checks that compare's interval and p-value are those of `verdict stats
// paired-bootstrap` and `randomization` with --units on the same rows: a
// cluster bootstrap over users, not rows.
func TestCompareDrawsResamplesUnits(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	var base, cand strings.Builder
	type row struct {
		id   string
		l, r float64
	}
	var rows []row
	base.WriteString("sample_id,draw,m\n")
	cand.WriteString("sample_id,draw,m\n")
	for u := range 40 {
		for d := range 3 {
			// Eighths are exact in the stored float4 values.
			l := float64((u*7+d*3)%8) / 8
			r := float64((u*5+d)%8) / 8
			id := fmt.Sprintf("user-%02d", u)
			fmt.Fprintf(&base, "%s,%d,%g\n", id, d, l)
			fmt.Fprintf(&cand, "%s,%d,%g\n", id, d, r)
			rows = append(rows, row{id, l, r})
		}
	}
	for name, b := range map[string]*strings.Builder{"base": &base, "cand": &cand} {
		path := filepath.Join(t.TempDir(), name+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "exp", "-r", name, "-s", "test", path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	res := runVerdict(t, url, "compare", "-e", "exp", "--format", "json", "--no-record", "base", "cand")
	require.Equal(t, 0, res.code, res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, 40, out[0].N, "units, not rows")

	var in struct {
		Left  []float64 `json:"left"`
		Right []float64 `json:"right"`
		Units []string  `json:"units"`
	}
	for _, r := range rows {
		in.Left, in.Right, in.Units = append(in.Left, r.l), append(in.Right, r.r), append(in.Units, r.id)
	}
	input, err := json.Marshal(in)
	require.NoError(t, err)
	res = runStats(t, string(input), "paired-bootstrap", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var boot struct {
		Estimate, Low, High float64
	}
	var raw map[string]float64
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &raw))
	boot.Estimate, boot.Low, boot.High = raw["estimate"], raw["ci_low"], raw["ci_high"]
	// The same data, so the same resamples: equal up to rounding of sums.
	const tol = 1e-12
	require.InDelta(t, boot.Estimate, out[0].Difference.Estimate, tol)
	require.InDelta(t, boot.Low, out[0].Difference.Low, tol)
	require.InDelta(t, boot.High, out[0].Difference.High, tol)

	res = runStats(t, string(input), "randomization", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &raw))
	require.InDelta(t, raw["p_value"], out[0].PValue, tol)

	// The leaderboard pairs runs with draws the same way: its difference
	// to --baseline base is compare's, resampled by user.
	res = runVerdict(t, url, "leaderboard", "-e", "exp", "--metric", "m", "--baseline", "base", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var lb compare.Leaderboard
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &lb))
	i := slices.IndexFunc(lb.Rows, func(r compare.LeaderboardRow) bool { return r.Run == "cand" })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, int64(40), lb.Rows[i].Units)
	require.InDelta(t, out[0].Difference.Estimate, lb.Rows[i].Difference.Estimate, tol)
	require.InDelta(t, out[0].Difference.Low, lb.Rows[i].Difference.Low, tol)
	require.InDelta(t, out[0].Difference.High, lb.Rows[i].Difference.High, tol)
	require.InDelta(t, out[0].PValue, *lb.Rows[i].PValue, tol)
}

func TestCompareLowerIsBetterAndMissingUnits(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	// logloss: the candidate's loss is 0.25 higher on a third of the users,
	// so it is worse although its mean is higher.
	logScores(t, url, "base", 0, "--lower-is-better", "a")
	var b strings.Builder
	b.WriteString("sample_id,a,b\n")
	for i := range 210 { // 10 users more than the baseline, and u000 missing
		if i == 0 {
			continue
		}
		a := float64(i%5) / 4
		if i%3 == 0 {
			a += 0.25
		}
		fmt.Fprintf(&b, "u%03d,%g,%g\n", i, a, float64(i%7)/8)
	}
	path := filepath.Join(t.TempDir(), "cand.csv")
	require.NoError(t, writeFileErr(path, b.String()))
	res := runVerdict(t, url, "log", "-e", "exp", "-r", "cand", "-s", "test", "--lower-is-better", "a", path)
	require.Equal(t, 0, res.code, res.stderr)

	// Different sample sets: different samples fingerprints, so the
	// intersection must be asked for.
	res = runVerdict(t, url, "compare", "-e", "exp", "--metric", "a", "--allow-different-targets",
		"--fail-on", "regression", "--format", "json", "base", "cand")
	require.Equal(t, 1, res.code, "a higher loss is a regression; stderr: %s", res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	r := out[0]
	require.True(t, r.LowerIsBetter)
	require.Equal(t, 199, r.N)
	require.Equal(t, int64(1), r.BaselineOnly, "u000")
	require.Equal(t, int64(10), r.CandidateOnly, "u200 to u209")
	require.True(t, r.Distinguishable)
	require.Equal(t, compare.Baseline, r.Winner, "lower is better: the baseline's lower loss wins")
	require.Less(t, r.Difference.Estimate, 0.0)
	// The sentence agrees with the winner: the lower loss beats the higher,
	// by a positive lead, and the counts call the candidate's higher losses
	// worse.
	require.Contains(t, r.Verdict, "base beats cand on a by 0.0829 (lower is better; 95% CI 0.0666 to 0.0992")
	require.Contains(t, r.Verdict, "base is better for 66 units, worse for 0 and the same for 133.")
	require.Equal(t, 66, r.CandidateWorse)
	require.Equal(t, 0, r.CandidateBetter)
}

func TestConcurrentComparesAreBothRecorded(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "base", 0)
	logScores(t, url, "worse", -0.25)
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for i := range 2 {
		cmd := verdictCmd(t, "--database-url", url, "compare", "-e", "exp", "--metric", "a", "--seed", fmt.Sprint(i), "base", "worse")
		wg.Go(func() { outs[i], errs[i] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for i := range 2 {
		require.NoError(t, errs[i], string(outs[i]))
	}
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM comparisons`))
	require.Equal(t, 2, queryInt(t, url, `SELECT count(DISTINCT seed) FROM comparisons`))
}

func TestRank(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "base", 0)
	logScores(t, url, "worse", -0.25)
	logScores(t, url, "same", 0)

	res := runVerdict(t, url, "rank", "-e", "exp", "--metric", "a", "--format", "json", "base", "worse", "same")
	require.Equal(t, 0, res.code, res.stderr)
	var out struct {
		Units int `json:"n_units"`
		Runs  []struct {
			Name    string  `json:"name"`
			AvgRank float64 `json:"avg_rank"`
		} `json:"runs"`
		Cliques [][]string `json:"cliques"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, 200, out.Units)
	// On the 67 users where worse loses it ranks 3rd and the others tie at
	// 1.5; elsewhere all three tie at 2. So worse averages (67*3+133*2)/200.
	require.Equal(t, "worse", out.Runs[2].Name)
	require.InDelta(t, (67*3.0+133*2)/200, out.Runs[2].AvgRank, 1e-12)
	require.Equal(t, [][]string{{"base", "same"}}, out.Cliques)
	// Holm against the best run (base): recorded in the history.
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM comparison_history WHERE method = 'friedman+holm'`))
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM comparison_history WHERE method = 'friedman+holm' AND winner = 'baseline' AND candidate_run = 'worse'`))
}

// TestCompareKFoldUsesCorrectedT logs 10-fold scores and checks that compare
// switches to the corrected resampled t, whose statistic the test computes
// from Nadeau & Bengio's formula: t = mean(d) / sqrt((1/J + n_test/n_train) s²).
func TestCompareKFoldUsesCorrectedT(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"kfold", "repeated_kfold"} {
		t.Run(protocol, func(t *testing.T) { testCorrectedT(t, protocol) })
	}
}

func testCorrectedT(t *testing.T, protocol string) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	left := []float64{0.81, 0.79, 0.83, 0.80, 0.82, 0.78, 0.84, 0.80, 0.81, 0.83}
	right := []float64{0.78, 0.78, 0.80, 0.79, 0.80, 0.77, 0.80, 0.79, 0.78, 0.80}
	for name, vals := range map[string][]float64{"base": left, "cand": right} {
		var b strings.Builder
		b.WriteString("sample_id,accuracy\n")
		for i, v := range vals {
			fmt.Fprintf(&b, "fold-%02d,%g\n", i, v)
		}
		path := filepath.Join(t.TempDir(), name+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "cv", "-r", name, "-s", "folds", "--protocol", protocol, "--folds", "10",
			"--n-train", "900", "--n-test", "100", path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	res := runVerdict(t, url, "compare", "-e", "cv", "--rope", "0.01", "--format", "json", "base", "cand")
	require.Equal(t, 0, res.code, res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	r := out[0]
	require.Equal(t, "corrected-t", r.Method)
	require.Empty(t, r.Warnings, "the corrected t is calibrated on folds")

	// The naive paired t on the same folds gets the calibration study's
	// warning, naming the calibrated method.
	naive := runVerdict(t, url, "compare", "-e", "cv", "--method", "t", "--no-record", "base", "cand")
	require.Equal(t, 0, naive.code, naive.stderr)
	require.Contains(t, naive.stdout, "warning: the folds of a cross-validation share most of their training data")
	require.Contains(t, naive.stdout, "use --method corrected-t.")

	// The stored values are float4: use them, as compare does.
	var d []float64
	for i := range left {
		d = append(d, float64(float32(left[i]))-float64(float32(right[i])))
	}
	mean, ss := 0.0, 0.0
	for _, x := range d {
		mean += x / 10
	}
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	tStat := mean / math.Sqrt((1.0/10+100.0/900)*ss/9)
	require.InDelta(t, mean, r.Difference.Estimate, 1e-12)
	require.Contains(t, r.Verdict, fmt.Sprintf("t = %.4g", tStat))
	require.NotNil(t, r.Bayes)
	require.InDelta(t, 1, r.Bayes.PBaselineBetter+r.Bayes.PEquivalent+r.Bayes.PCandidateBetter, 1e-9)
}

// TestCompareKFoldWithoutSizes logs 5-fold scores of a loss without the
// fold sizes: compare assumes ρ = 1/5, says so, and with --rope decides
// for the run with the LOWER loss, in the JSON, in the sentence and in the
// recorded parameters.
func TestCompareKFoldWithoutSizes(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	// The candidate's loss is 0.03 to 0.05 lower in every fold.
	base := []float64{0.41, 0.39, 0.43, 0.40, 0.42}
	gap := []float64{0.03, 0.05, 0.04, 0.045, 0.035}
	for name, shift := range map[string]float64{"base": 0, "cand": 1} {
		var b strings.Builder
		b.WriteString("sample_id,logloss\n")
		for i, v := range base {
			fmt.Fprintf(&b, "fold-%d,%g\n", i, v-shift*gap[i])
		}
		path := filepath.Join(t.TempDir(), name+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "cv", "-r", name, "-s", "folds", "--protocol", "kfold", "--lower-is-better", "logloss", path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	res := runVerdict(t, url, "compare", "-e", "cv", "--rope", "0.01", "--decide-at", "0.9", "--format", "json", "base", "cand")
	require.Equal(t, 0, res.code, res.stderr)
	var out []map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	r := out[0]
	require.Equal(t, "corrected-t", r["method"])
	require.Equal(t, true, r["rho_assumed"])
	require.InDelta(t, 0.2, r["rho"], 1e-15)
	bayes := r["bayes"].(map[string]any)
	require.Equal(t, "candidate_better", bayes["decision"])
	require.Equal(t, 0.9, bayes["decide_at"])
	require.Greater(t, bayes["p_candidate_better"], 0.9)
	verdict := r["verdict"].(string)
	require.Contains(t, verdict, "ρ = 1/k = 0.2 assumed: the fold sizes were not recorded")
	require.Contains(t, verdict, "With a ROPE of 0.01, the posterior decides: cand better (P = ")
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM comparisons
		WHERE (parameters->>'decide_at')::float8 = 0.9 AND (parameters->>'rope')::float8 = 0.01 AND (parameters->>'rho')::float8 = 0.2`))

	// The table reads the same sentence.
	res = runVerdict(t, url, "compare", "-e", "cv", "--rope", "0.01", "--no-record", "base", "cand")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "the posterior decides: cand better")
}

func TestCompareMcNemar(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	// 100 samples: both right on 60, only the baseline right on 15, only the
	// candidate on 5, both wrong on 20. b = 15, c = 5: exact McNemar p is
	// 2·P(Binomial(20, 1/2) ≤ 5) = 0.041389 (scipy.stats.binomtest(5, 20)).
	for name, right := range map[string]func(i int) int{
		"base": func(i int) int { return map[bool]int{true: 1}[i < 75] },
		"cand": func(i int) int { return map[bool]int{true: 1}[i < 60 || (i >= 75 && i < 80)] },
	} {
		var b strings.Builder
		b.WriteString("sample_id,correct\n")
		for i := range 100 {
			fmt.Fprintf(&b, "s%03d,%d\n", i, right(i))
		}
		path := filepath.Join(t.TempDir(), name+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "clf", "-r", name, "-s", "test", path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	res := runVerdict(t, url, "compare", "-e", "clf", "--method", "mcnemar", "--format", "json", "base", "cand")
	require.Equal(t, 0, res.code, res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, "mcnemar+bootstrap-interval", out[0].Method)
	require.InDelta(t, 0.041389465332031257, out[0].PValue, 1e-12)
	require.InDelta(t, 0.10, out[0].Difference.Estimate, 1e-12)
	require.Contains(t, out[0].Verdict, "15 units right only for base, 5 only for cand")
}

// TestCompareFiveByTwo logs 5x2 fold scores and checks Dietterich's t from
// its formula: t = d_11 / sqrt(mean over repetitions of s_i²), s_i² =
// (d_i1 − d̄_i)² + (d_i2 − d̄_i)², with 5 degrees of freedom.
func TestCompareFiveByTwo(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	// Eighths, exact in float4.
	left := []float64{0.875, 0.75, 0.875, 0.875, 0.75, 0.875, 0.875, 0.75, 0.75, 0.875}
	right := []float64{0.75, 0.75, 0.75, 0.625, 0.75, 0.75, 0.625, 0.75, 0.625, 0.75}
	for name, vals := range map[string][]float64{"base": left, "cand": right} {
		var b strings.Builder
		b.WriteString("sample_id,accuracy\n")
		for i, v := range vals {
			fmt.Fprintf(&b, "r%df%d,%g\n", i/2+1, i%2+1, v)
		}
		path := filepath.Join(t.TempDir(), name+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "cv", "-r", name, "-s", "folds", "--protocol", "5x2", path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	res := runVerdict(t, url, "compare", "-e", "cv", "--format", "json", "base", "cand")
	require.Equal(t, 0, res.code, res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, "5x2cv-t+bootstrap-interval", out[0].Method)

	var s2 float64
	for i := 0; i < 10; i += 2 {
		d1, d2 := left[i]-right[i], left[i+1]-right[i+1]
		m := (d1 + d2) / 2
		s2 += ((d1-m)*(d1-m) + (d2-m)*(d2-m)) / 5
	}
	tStat := (left[0] - right[0]) / math.Sqrt(s2)
	require.Contains(t, out[0].Verdict, fmt.Sprintf("t = %.4g (df 5)", tStat))
}

func TestRankAcrossEvalSets(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	// Run A scores best and C worst on each of four data sets.
	for d := range 4 {
		for j, run := range []string{"A", "B", "C"} {
			path := filepath.Join(t.TempDir(), "s.csv")
			require.NoError(t, writeFileErr(path, fmt.Sprintf("sample_id,acc\nx,%g\ny,%g\n", 0.9-0.1*float64(j), 0.8-0.1*float64(j)+0.01*float64(d))))
			res := runVerdict(t, url, "log", "-e", "bench", "-r", run, "-s", fmt.Sprintf("ds%d", d), path)
			require.Equal(t, 0, res.code, res.stderr)
		}
	}
	res := runVerdict(t, url, "rank", "--across-eval-sets", "-e", "bench", "--metric", "acc", "--format", "json", "C", "A", "B")
	require.Equal(t, 0, res.code, res.stderr)
	var out struct {
		Blocks   int `json:"n_units"`
		Friedman struct {
			AvgRanks []float64 `json:"avg_ranks"`
			Chi2     float64   `json:"chi2"`
		} `json:"friedman"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, 4, out.Blocks)
	require.Equal(t, []float64{3, 1, 2}, out.Friedman.AvgRanks)
	// Friedman's chi2 without ties, N = 4 blocks, k = 3: 12N/(k(k+1)) ΣR² − 3N(k+1) = 4·14 − 48.
	require.InDelta(t, 8, out.Friedman.Chi2, 1e-12)
}

// TestCompareDeLong logs per-sample scores of two classifiers with the
// labels, and checks compare --method delong against verdict stats delong
// on the same data and against AUCs counted by hand.
func TestCompareDeLong(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	labels := []int{1, 1, 1, 0, 0, 0, 1, 0}
	left := []float64{0.875, 0.75, 0.5, 0.25, 0.375, 0.125, 0.625, 0.5}
	right := []float64{0.5, 0.75, 0.25, 0.375, 0.625, 0.125, 0.5, 0.25}
	lab := filepath.Join(t.TempDir(), "labels.csv")
	var lb strings.Builder
	lb.WriteString("sample_id,label\n")
	for i, l := range labels {
		fmt.Fprintf(&lb, "s%d,%d\n", i, l)
	}
	require.NoError(t, writeFileErr(lab, lb.String()))
	for name, vals := range map[string][]float64{"base": left, "cand": right} {
		var b strings.Builder
		b.WriteString("sample_id,score\n")
		for i, v := range vals {
			fmt.Fprintf(&b, "s%d,%g\n", i, v)
		}
		path := filepath.Join(t.TempDir(), name+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "clf", "-r", name, "-s", "test", "--labels", lab, path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	res := runVerdict(t, url, "compare", "-e", "clf", "--method", "delong", "--format", "json", "base", "cand")
	require.Equal(t, 0, res.code, res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	// By hand: positives {0.875, 0.75, 0.5, 0.625} against negatives
	// {0.25, 0.375, 0.125, 0.5}: 15 wins and one tie of 16 pairs for the
	// baseline, AUC 15.5/16; the candidate's positives {0.5, 0.75, 0.25, 0.5}
	// against {0.375, 0.625, 0.125, 0.25}: 3 + 4 + 1.5 + 3 = 11.5, AUC 11.5/16.
	require.InDelta(t, 15.5/16, out[0].BaselineMean, 1e-12)
	require.InDelta(t, 11.5/16, out[0].CandidateMean, 1e-12)

	in, err := json.Marshal(map[string]any{"labels": labels, "left": left, "right": right})
	require.NoError(t, err)
	sres := runStats(t, string(in), "delong", "--format", "json")
	require.Equal(t, 0, sres.code, sres.stderr)
	var d map[string]float64
	require.NoError(t, json.Unmarshal([]byte(sres.stdout), &d))
	require.InDelta(t, d["p_value"], out[0].PValue, 1e-12)
	require.InDelta(t, d["ci_low"], out[0].Difference.Low, 1e-12)

	// Labels that contradict the recorded ones are refused.
	bad := filepath.Join(t.TempDir(), "bad.csv")
	require.NoError(t, writeFileErr(bad, "sample_id,label\ns0,0\n"))
	var same strings.Builder
	same.WriteString("sample_id,score\n")
	for i := range labels {
		fmt.Fprintf(&same, "s%d,0.5\n", i)
	}
	path := filepath.Join(t.TempDir(), "x.csv")
	require.NoError(t, writeFileErr(path, same.String()))
	res = runVerdict(t, url, "log", "-e", "clf", "-r", "other", "-s", "test", "--labels", bad, path)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, `sample "s0" is labelled 0, but the evaluation set recorded 1`)
}

func TestLeaderboard(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "base", 0)
	logScores(t, url, "worse", -0.25)
	logScores(t, url, "same", 0)
	logScores(t, url, "other", 0, "--target-fingerprint", strings.Repeat("a", 64))

	res := runVerdict(t, url, "leaderboard", "-e", "exp", "-s", "test", "--metric", "a", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var lb struct {
		Reference string `json:"reference"`
		Rows      []struct {
			Run             string   `json:"run"`
			Units           int64    `json:"n_units"`
			Distinguishable bool     `json:"distinguishable"`
			SameGroup       bool     `json:"same_group_as_reference"`
			PAdjusted       *float64 `json:"p_adjusted"`
		} `json:"rows"`
		Separate []struct {
			Run string `json:"run"`
		} `json:"other_targets"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &lb))
	require.Len(t, lb.Rows, 3, "the run on other targets is not ranked")
	require.Equal(t, "other", lb.Separate[0].Run)
	require.Equal(t, "worse", lb.Rows[2].Run)
	require.True(t, lb.Rows[2].Distinguishable)
	require.False(t, lb.Rows[2].SameGroup)
	require.Equal(t, int64(200), lb.Rows[0].Units)
	// base and same have identical scores: never distinguishable.
	for _, r := range lb.Rows[:2] {
		require.True(t, r.SameGroup, r.Run)
	}

	res = runVerdict(t, url, "leaderboard", "-e", "exp", "--metric", "ndcg")
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, `no evaluation of experiment "exp" has ndcg; its metrics: a, b`)
	res = runVerdict(t, url, "leaderboard", "-e", "exp", "-s", "test", "--metric", "a", "--plot", filepath.Join(t.TempDir(), "no", "such", "lb.svg"))
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, "does not exist")
	require.Empty(t, res.stdout, "refused before any work")
}

func TestDiff(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "base", 0)
	logScores(t, url, "worse", -0.25)
	out := filepath.Join(t.TempDir(), "pairs.csv")
	res := runVerdict(t, url, "diff", "-e", "exp", "--metric", "a", "--worst", "3", "--out", out, "base", "worse")
	require.Equal(t, 0, res.code, res.stderr)
	// 67 users (i%3 == 0) lose 0.25 each: the worst three are u000, u003, u006
	// (ties keep sample ID order), and they account for 3 of 67 shares.
	// Differences are baseline − candidate, +0.25 for each of them.
	require.Contains(t, res.stdout, "u000         0.0000    -0.2500     +0.2500\nu003         0.7500     0.5000     +0.2500\nu006")
	require.Contains(t, res.stdout, "the candidate is better for 0 users, worse for 67, the same for 133")
	require.Contains(t, res.stdout, "these 3 users account for +0.7500 of the total difference +16.75 (4%)")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, 201, strings.Count(string(b), "\n"), "a header and every pair")
}

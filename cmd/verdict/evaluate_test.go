package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store/storetest"
)

// The fixtures are evaluate/testdata/rankings (see gen_numpy.py there): six
// samples, top 4 of 10 items. By hand, with relevant = nonzero targets:
//
//	row  items      relevant  hits     hit_rate@2  precision@4  recall@4
//	u0   3 1 4 0    {1,4}     .x x.    1           2/4          2/2
//	u1   2 5 7 9    {}        (no targets: not scored)
//	u2   0 6 8 2    {8,2}     ..xx     0           2/4          2/2
//	u3   9 8 7 6    {6,1}     ...x     0           1/4          1/2
//	u4   5 4 3 2    {5}       x...     1           1/4          1/1
//	ü5   1 2 3 4    {}        (its one target is an explicit zero)
//
// so the means over the 4 scored rows are 0.5, 0.375 and 0.875.
func evaluateArgs(extra ...string) []string {
	dir := filepath.Join("..", "..", "evaluate", "testdata", "rankings")
	args := []string{"evaluate",
		"--items", filepath.Join(dir, "items.npy"),
		"--scores", filepath.Join(dir, "scores.npy"),
		"--targets", filepath.Join(dir, "targets.npz"),
		"--sample-ids", filepath.Join(dir, "ids_str.npy"),
		"--metrics", "hit_rate@2", "--metrics", "precision@4,recall@4",
		"--format", "json"}
	return append(args, extra...)
}

func TestEvaluateNoLog(t *testing.T) {
	t.Parallel()
	perUser := filepath.Join(t.TempDir(), "per-user.csv")
	res := runVerdict(t, "postgres://unused.invalid/none", evaluateArgs("--no-log", "--per-user-out", perUser)...)
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, map[string]float64{"hit_rate@2": 0.5, "precision@4": 0.375, "recall@4": 0.875}, out.Means)
	require.Equal(t, int64(6), out.Rows)
	require.Equal(t, int64(4), out.ScoredRows)
	require.Equal(t, int64(4), out.Units)
	require.Equal(t, 4, out.RequiredK)
	require.Nil(t, out.EvaluationID)
	require.Len(t, out.TargetFingerprint, 64)

	b, err := os.ReadFile(perUser)
	require.NoError(t, err)
	require.Equal(t, ""+
		"sample_id,hit_rate@2,precision@4,recall@4\n"+
		"u0,1,0.5,1\n"+
		"u2,0,0.5,1\n"+
		"u3,0,0.25,0.5\n"+
		"u4,1,0.25,1\n", string(b))
}

func TestEvaluateLogsWithTargetFingerprint(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	res := runVerdict(t, url, evaluateArgs("-e", "movies", "-r", "model", "-s", "test")...)
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.NotNil(t, out.EvaluationID)
	require.False(t, out.Existing)

	require.Equal(t, 6, queryInt(t, url, `SELECT n_rows FROM evaluations`))
	require.Equal(t, 4, queryInt(t, url, `SELECT n_scored_rows FROM evaluations`))
	require.Equal(t, 4, queryInt(t, url, `SELECT n_units FROM evaluations`))
	require.Equal(t, 4, queryInt(t, url, `SELECT required_k FROM evaluations`))
	require.Equal(t, 1, queryInt(t, url, `SELECT eval_draws FROM evaluations`), "no user has two rows")
	require.Equal(t, 4, queryInt(t, url, `SELECT count(*) FROM unit_values`))
	require.Equal(t, out.TargetFingerprint, storetest.Scalar[string](t, url, `SELECT fingerprint FROM evaluation_sets WHERE fingerprint_kind = 'targets'`))
	require.Equal(t, "{2,4}", storetest.Scalar[string](t, url, `SELECT cutoffs::text FROM evaluations`))
	// The stored values are the per-user values: u3's recall@4 is 1/2.
	require.Equal(t, 0.5, storetest.Scalar[float64](t, url, `
		SELECT value FROM unit_values_long WHERE sample_id = 'u3' AND metric = 'recall@4'`))

	res = runVerdict(t, url, evaluateArgs("-e", "movies", "-r", "model", "-s", "test")...)
	require.Equal(t, 0, res.code, res.stderr)
	var again evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &again))
	require.True(t, again.Existing)
	require.Equal(t, *out.EvaluationID, *again.EvaluationID)
}

func TestEvaluateRefusesBadUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no run to log to", args: evaluateArgs(),
			want: "verdict: logging needs --experiment, --run and --eval-set (or --no-log to only compute)\n"},
		{name: "bad metric", args: []string{"evaluate", "--no-log", "--metrics", "ndgc@10", "--items", "x.npy", "--targets", "y.npz"},
			want: "verdict: bad metric \"ndgc@10\": unknown name \"ndgc\"; the metrics are ndcg, recall, calibrated_recall, precision, hit_rate, mrr, map and coverage\n"},
		{name: "no input", args: []string{"evaluate", "--no-log"},
			want: "verdict: no input: give --items and --targets, --trec-run and --trec-qrels, or --predictions and --targets\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runVerdict(t, "postgres://unused.invalid/none", tt.args...)
			require.Equal(t, 2, res.code)
			require.Equal(t, tt.want, res.stderr)
		})
	}
}

// TestEvaluateTRECMatchesTrecEval evaluates the TREC fixture of
// evaluate/testdata/rankings. The expected values are trec_eval's (-c, so
// that q3, judged but missing from the run, counts with no hits), derived by
// hand in evaluate/rankings_trec_test.go: the run ranks q1's tied d3 before
// d2, giving hits at ranks 1, 2 and 5 of R = 3; q2 hits rank 2 of R = 2; q6
// ranks 2 and 5 of R = 2; q4 and q5 have no relevant documents.
func TestEvaluateTRECMatchesTrecEval(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "evaluate", "testdata", "rankings")
	res := runVerdict(t, "postgres://unused.invalid/none", "evaluate", "--no-log", "--format", "json",
		"--trec-run", filepath.Join(dir, "trec.run"), "--trec-qrels", filepath.Join(dir, "trec.qrels"),
		"--metrics", "precision@5,recall@5,ndcg@5,hit_rate@1")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "verdict: 1 qrels queries with relevant documents are missing from the run: scored as rows with no hits (as trec_eval -c)\n", res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))

	l3, l6 := math.Log2(3), math.Log2(6)
	ndcg := []float64{
		(1 + 1/l3 + 1/l6) / (1 + 1/l3 + 0.5), // q1
		(1 / l3) / (1 + 1/l3),                // q2
		0,                                    // q3
		(1/l3 + 1/l6) / (1 + 1/l3),           // q6
	}
	want := map[string]float64{
		"precision@5": (3.0/5 + 1.0/5 + 0 + 2.0/5) / 4, // P_5
		"recall@5":    (1 + 0.5 + 0 + 1) / 4,           // recall_5
		"ndcg@5":      (ndcg[0] + ndcg[1] + ndcg[2] + ndcg[3]) / 4,
		"hit_rate@1":  (1 + 0 + 0 + 0) / 4.0, // success_1
	}
	for k, v := range want {
		require.InDelta(t, v, out.Means[k], 1e-12, k)
	}
	require.InDelta(t, 0.4895, out.Means["ndcg@5"], 5e-5, "the hand-rounded trec_eval figure")
	require.Equal(t, int64(6), out.Rows)
	require.Equal(t, int64(4), out.ScoredRows)
}

// TestFingerprintMatchesEvaluate checks that `verdict fingerprint` on the
// targets alone prints what `verdict evaluate` records, so that scores logged
// with --target-fingerprint share the evaluation set.
func TestFingerprintMatchesEvaluate(t *testing.T) {
	t.Parallel()
	res := runVerdict(t, "postgres://unused.invalid/none", evaluateArgs("--no-log")...)
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))

	dir := filepath.Join("..", "..", "evaluate", "testdata", "rankings")
	targets := filepath.Join(dir, "targets.npz")
	res = runVerdict(t, "postgres://unused.invalid/none", "fingerprint", "--sample-ids", filepath.Join(dir, "ids_str.npy"), targets)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, out.TargetFingerprint+"\t"+targets+"\t4 samples with targets\n", res.stdout)

	res = runVerdict(t, "postgres://unused.invalid/none", "fingerprint", "x.xlsx")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, `verdict: x.xlsx: unknown targets format ".xlsx"`)
}

// TestFingerprintWithoutSampleIDs evaluates the NumPy fixtures without
// --sample-ids, so that the sample IDs are the row indices, logs the
// evaluation to a real database, and checks that the fingerprint it
// recorded is the one `verdict fingerprint` prints for the targets alone,
// also without --sample-ids: scores computed elsewhere for the same rows and
// logged with --target-fingerprint land in the same evaluation set.
func TestFingerprintWithoutSampleIDs(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	dir := filepath.Join("..", "..", "evaluate", "testdata", "rankings")
	targets := filepath.Join(dir, "targets.npz")
	res := runVerdict(t, url, "evaluate", "--items", filepath.Join(dir, "items.npy"), "--targets", targets,
		"--metrics", "ndcg@4", "-e", "movies", "-r", "model", "-s", "test", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	recorded := storetest.Scalar[string](t, url, `SELECT fingerprint FROM evaluation_sets WHERE fingerprint_kind = 'targets'`)
	require.Equal(t, recorded, out.TargetFingerprint)

	res = runVerdict(t, url, "fingerprint", targets)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, recorded+"\t"+targets+"\t4 samples with targets\n", res.stdout)

	// Per-user scores of the same rows, logged with that fingerprint, share
	// the evaluation set, and pair with the evaluation by row index.
	scores := writeFile(t, "scores.csv", "sample_id,auc\n0,1\n2,0\n3,1\n4,0\n")
	res = runVerdict(t, url, "log", "-e", "movies", "-r", "elsewhere", "-s", "test", "--target-fingerprint", recorded, scores)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM evaluation_sets`))
	require.Equal(t, 4, queryInt(t, url, `
		SELECT count(*) FROM unit_values a JOIN unit_values b USING (sample_id)
		WHERE a.evaluation_id < b.evaluation_id`))
}

// TestEvaluateFormats prints the hand-computed means above (0.5, 0.375,
// 0.875) as a table, Markdown and CSV; the last --format wins.
func TestEvaluateFormats(t *testing.T) {
	t.Parallel()
	for format, want := range map[string]string{
		"table":    "METRIC         MEAN\nhit_rate@2   0.5000\nprecision@4  0.3750\nrecall@4     0.8750\n",
		"markdown": "| METRIC | MEAN |\n|---|---:|\n| hit_rate@2 | 0.5000 |\n| precision@4 | 0.3750 |\n| recall@4 | 0.8750 |\n",
		"csv":      "metric,mean\nhit_rate@2,0.5\nprecision@4,0.375\nrecall@4,0.875\n",
	} {
		res := runVerdict(t, "postgres://unused.invalid/none", evaluateArgs("--no-log", "--format", format)...)
		require.Equal(t, 0, res.code, res.stderr)
		require.True(t, strings.HasPrefix(res.stdout, want), "%s:\n%s", format, res.stdout)
	}
}

// TestEvaluateDefaultMetrics: without --metrics, evaluate computes
// calibrated_recall and ndcg at the predictions' full width (4 here), as
// its help says. The expected means are the formulas of docs/metrics.md
// worked by hand on the fixtures above (relevant items at ranks u0: 2,3 of
// R=2; u2: 3,4 of R=2; u3: 4 of R=2; u4: 1 of R=1).
func TestEvaluateDefaultMetrics(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "evaluate", "testdata", "rankings")
	res := runVerdict(t, "postgres://unused.invalid/none", "evaluate", "--no-log", "--format", "json",
		"--items", filepath.Join(dir, "items.npy"),
		"--scores", filepath.Join(dir, "scores.npy"),
		"--targets", filepath.Join(dir, "targets.npz"),
		"--sample-ids", filepath.Join(dir, "ids_str.npy"))
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))

	g := func(rank int) float64 { return 1 / math.Log2(float64(rank)+1) }
	idcg2 := g(1) + g(2)
	ndcg := ((g(2)+g(3))/idcg2 + (g(3)+g(4))/idcg2 + g(4)/idcg2 + 1) / 4
	calibrated := (1.0 + 1 + 0.5 + 1) / 4 // hits / min(4, R)
	require.Len(t, out.Means, 2, "%v", out.Means)
	const tol = 1e-12
	require.InDelta(t, calibrated, out.Means["calibrated_recall@4"], tol)
	require.InDelta(t, ndcg, out.Means["ndcg@4"], tol)
}

// TestEvaluateIdempotencyKeyHoldsOneContent: evaluate's key holds the
// files and flags it was first logged with; other metrics under the same
// key are refused and store nothing, and the same request again returns
// the first evaluation.
func TestEvaluateIdempotencyKeyHoldsOneContent(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	res := runVerdict(t, url, evaluateArgs("-e", "movies", "-r", "model", "-s", "test", "--idempotency-key", "k1")...)
	require.Equal(t, 0, res.code, res.stderr)

	res = runVerdict(t, url, append(evaluateArgs("-e", "movies", "-r", "model", "-s", "test", "--idempotency-key", "k1"), "--metrics", "ndcg@3")...)
	require.Equal(t, 2, res.code, res.stdout)
	require.Contains(t, res.stderr, `idempotency key "k1" already holds evaluation 1`)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM evaluations`))

	res = runVerdict(t, url, evaluateArgs("--experiment", "movies", "--run", "model", "--eval-set", "test", "--idempotency-key", "k1")...)
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.True(t, out.Existing)
	require.Equal(t, int64(1), *out.EvaluationID)
}

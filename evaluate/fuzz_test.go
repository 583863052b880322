package evaluate_test

import (
	"archive/zip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// The fuzz targets feed the ranking readers, FingerprintTargets and
// ParseMetrics arbitrary input. Whatever it holds, they must not panic, an
// error must be about the input (wrapping ErrBadInput, or ErrBadMetric for
// a metric spec) or a failure to read it (an I/O error), and a reader that
// reads its input to the end must fingerprint its targets as
// FingerprintTargets does. Run one with
//
//	go test ./evaluate -run '^$' -fuzz FuzzTRECRankings -fuzztime 60s
//
// and commit what it finds under testdata/fuzz/FuzzTRECRankings, which
// plain go test replays.

// fuzzBadInput fails the test for an error that is neither about the
// input nor a failure to read it.
func fuzzBadInput(t *testing.T, err error) {
	t.Helper()
	var pathErr *fs.PathError
	if err != nil && !errors.Is(err, evaluate.ErrBadInput) && !errors.As(err, &pathErr) {
		t.Fatalf("an error that does not wrap ErrBadInput: %v", err)
	}
}

// fuzzFiles writes files by name to a fresh directory and returns a
// function that gives their paths.
func fuzzFiles(t *testing.T, files map[string][]byte) func(string) string {
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func(name string) string { return filepath.Join(dir, name) }
}

// fuzzRankings reads r to its end, checks the error, and at a clean end
// checks its targets' fingerprint against FingerprintTargets of targets
// (sample IDs from sampleIDs, for .npz).
func fuzzRankings(t *testing.T, r evaluate.Rankings, err error, targets, sampleIDs, format string) {
	t.Helper()
	if err != nil {
		fuzzBadInput(t, err)
		return
	}
	defer r.Close()
	_, _, err = readRankings(t, r)
	fp, _, fpErr := evaluate.FingerprintTargets(targets, sampleIDs, format)
	fuzzBadInput(t, fpErr)
	if err != nil {
		fuzzBadInput(t, err)
		return
	}
	if fpErr == nil && fp != r.Targets().Sum() {
		t.Fatalf("FingerprintTargets gives %s, the reader %s", fp, r.Targets().Sum())
	}
}

func FuzzTRECRankings(f *testing.F) {
	run, qrels := fixtureBytesTB(f, "trec.run"), fixtureBytesTB(f, "trec.qrels")
	f.Add(run, qrels)
	f.Add(reversedLines(run), qrels)
	f.Add([]byte("q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\nq2 Q0 d2 1 NaN t\n"), []byte("q1 0 d1 1\nq2 0 d2 -1\n"))
	f.Add([]byte("q1\tQ0\td1\t1\t1_0\tt\r\n\n"), []byte("q1 0 d1 x\n"))
	f.Fuzz(func(t *testing.T, run, qrels []byte) {
		path := fuzzFiles(t, map[string][]byte{"trec.run": run, "trec.qrels": qrels})
		r, err := evaluate.OpenTRECRankings(path("trec.run"), path("trec.qrels"), evaluate.RankingOptions{BatchSize: 2})
		fuzzRankings(t, r, err, path("trec.qrels"), "", "qrels")
	})
}

func FuzzTableRankings(f *testing.F) {
	scored := strings.ReplaceAll(tablePredictionsRank, "rank", "score")
	f.Add([]byte(tablePredictionsRank), []byte(tableTargets), false)
	f.Add([]byte(scored), []byte(tableTargets), false)
	f.Add([]byte(strings.ReplaceAll(tablePredictionsRank, ",", "\t")), []byte(strings.ReplaceAll(tableTargets, ",", "\t")), true)
	f.Add([]byte("sample_id,item,rank\nu1,a,1\nu2,b,1\nu1,c,2\n"), []byte("sample_id,item\n\"u\n1\",a\n"), false)
	f.Add([]byte("sample_id,item,score\nu1,a,0x1p-2\nu1,b,NaN\n"), []byte("sample_id,item,x\nu1,a\n"), false)
	f.Fuzz(func(t *testing.T, predictions, targets []byte, tsv bool) {
		ext := ".csv"
		if tsv {
			ext = ".tsv"
		}
		path := fuzzFiles(t, map[string][]byte{"predictions" + ext: predictions, "targets" + ext: targets})
		r, err := evaluate.OpenTableRankings(path("predictions"+ext), path("targets"+ext), evaluate.RankingOptions{BatchSize: 2})
		fuzzRankings(t, r, err, path("targets"+ext), "", "")
	})
}

func FuzzTableRankingsParquet(f *testing.F) {
	dir := f.TempDir()
	preds := filepath.Join(dir, "predictions.parquet")
	inputtest.WriteParquetAt(f, preds, []pqPrediction{{SampleID: "u1", Item: 1, Rank: 1}, {SampleID: "u1", Item: 2, Rank: 2}, {SampleID: "u2", Item: 1, Rank: 1}})
	tgts := filepath.Join(dir, "targets.parquet")
	inputtest.WriteParquetAt(f, tgts, []pqTarget{{SampleID: "u1", Item: 2}, {SampleID: "u3", Item: 1}})
	p, err := os.ReadFile(preds)
	if err != nil {
		f.Fatal(err)
	}
	tg, err := os.ReadFile(tgts)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(p, tg)
	f.Fuzz(func(t *testing.T, predictions, targets []byte) {
		path := fuzzFiles(t, map[string][]byte{"predictions.parquet": predictions, "targets.parquet": targets})
		r, err := evaluate.OpenTableRankings(path("predictions.parquet"), path("targets.parquet"), evaluate.RankingOptions{BatchSize: 2})
		fuzzRankings(t, r, err, path("targets.parquet"), "", "")
	})
}

func FuzzNumPyRankings(f *testing.F) {
	f.Add(fixtureBytesTB(f, "items.npy"), fixtureBytesTB(f, "scores.npy"), fixtureBytesTB(f, "targets.npz"), fixtureBytesTB(f, "ids_str.npy"))
	f.Add(fixtureBytesTB(f, "items_i8.npy"), []byte(nil), fixtureBytesTB(f, "targets_stored.npz"), fixtureBytesTB(f, "ids_int.npy"))
	files := numpyFiles()
	f.Add(files["items.npy"], files["scores.npy"], files["targets.npz"], files["ids.npy"])
	f.Add(files["items.npy"], []byte(nil), inputtest.Zip(zip.Deflate, csrNPZ(6, 10, inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2), numpyData)...), []byte(nil))
	f.Fuzz(func(t *testing.T, items, scores, targets, ids []byte) {
		files := map[string][]byte{"items.npy": items, "targets.npz": targets}
		if scores != nil {
			files["scores.npy"] = scores
		}
		if ids != nil {
			files["ids.npy"] = ids
		}
		path := fuzzFiles(t, files)
		optional := func(name string) string {
			if files[name] == nil {
				return ""
			}
			return path(name)
		}
		r, err := evaluate.OpenNumPyRankings(path("items.npy"), optional("scores.npy"), path("targets.npz"), optional("ids.npy"), evaluate.RankingOptions{BatchSize: 2})
		fuzzRankings(t, r, err, path("targets.npz"), optional("ids.npy"), "npz")
	})
}

func FuzzParseMetrics(f *testing.F) {
	for _, seed := range []string{
		"ndcg@10", "ndcg@10,20,50,recall@20", " NDCG @ 10 , 20 ", "ndcg@10,,recall@5", "ndgc@10", "ndcg",
		"ndcg@0", "ndcg@1000001", "10,ndcg@5", "map@1,mrr@1,hit_rate@1,precision@1,calibrated_recall@1", "ndcg@1_0",
	} {
		f.Add(seed, "")
	}
	f.Add("ndcg@10", "ndcg@10,20")
	f.Fuzz(func(t *testing.T, a, b string) {
		specs := []string{a}
		if b != "" {
			specs = append(specs, b)
		}
		metrics, err := evaluate.ParseMetrics(specs)
		if err != nil {
			if !errors.Is(err, evaluate.ErrBadMetric) {
				t.Fatalf("an error that does not wrap ErrBadMetric: %v", err)
			}
			return
		}
		if len(metrics) == 0 {
			return
		}
		if k := evaluate.RequiredK(metrics); k < 1 || k > evaluate.MaxCutoff {
			t.Fatalf("required k %d", k)
		}
		// Parsed metrics can always be evaluated together: their keys are
		// distinct and not empty.
		if _, err := evaluate.NewEvaluator(metrics); err != nil {
			t.Fatalf("NewEvaluator of %q: %v", specs, err)
		}
	})
}

// fixtureBytesTB reads a committed fixture of testdata/rankings.
func fixtureBytesTB(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rankings", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

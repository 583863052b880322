package evaluate_test

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
)

// readPerUser parses a per-user CSV file into each row's values by key, in
// file order, with the sample IDs.
func readPerUser(t *testing.T, path string) (ids []string, vals []map[string]float64) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	header := recs[0]
	for _, rec := range recs[1:] {
		ids = append(ids, rec[0])
		row := map[string]float64{}
		for j, text := range rec[1:] {
			v, err := strconv.ParseFloat(text, 64)
			require.NoError(t, err)
			row[header[j+1]] = v
		}
		vals = append(vals, row)
	}
	return ids, vals
}

// TestRunDebug evaluates the demo's item-kNN rankings of MovieLens (top 20,
// 610 users, 10 targets each) with debug rows, read by each reader. The
// rows' items, targets and hit ranks are checked against the rankings the
// demo made, and their values against the per-user file of the same run,
// bit for bit.
func TestRunDebug(t *testing.T) {
	t.Parallel()
	ids, ranked, targets := movieLens(t, "knn", 20)
	items, scores, npyTargets, npyIDs := movieLensNumPy(t, ids, ranked, targets)
	preds, tgts := movieLensTables(t, ids, ranked, targets, true)
	run, qrels := movieLensTREC(t, ids, ranked, targets)
	metrics, err := evaluate.ParseMetrics([]string{"ndcg@10", "recall@5,10", "map@10", "mrr@10"})
	require.NoError(t, err)
	// Sample IDs deep in the input, out of input order, repeated, and one
	// that no row has.
	asked := []string{ids[600], "user-none", ids[3], ids[311], ids[600]}
	for _, tc := range []struct {
		name   string
		open   func() (evaluate.Rankings, error)
		item   string // prefix of the items' IDs
		scores bool
	}{
		{"numpy", func() (evaluate.Rankings, error) {
			return evaluate.OpenNumPyRankings(items, scores, npyTargets, npyIDs, evaluate.RankingOptions{BatchSize: 50})
		}, "", true},
		{"table", func() (evaluate.Rankings, error) {
			return evaluate.OpenTableRankings(preds, tgts, evaluate.RankingOptions{BatchSize: 50})
		}, "", true},
		{"trec", func() (evaluate.Rankings, error) {
			return evaluate.OpenTRECRankings(run, qrels, evaluate.RankingOptions{BatchSize: 50})
		}, "m", true},
		{"in-memory", func() (evaluate.Rankings, error) {
			return evaluate.NewInMemoryRankings(ids, ranked, targets, 0)
		}, "", false},
		{"no-target-keeper", func() (evaluate.Rankings, error) {
			r, err := evaluate.NewInMemoryRankings(ids, ranked, targets, 0)
			return struct{ evaluate.Rankings }{r}, err // hides keepTargets
		}, "", false},
	} {
		for _, sel := range []evaluate.DebugSelection{{First: 7}, {SampleIDs: asked}} {
			name := tc.name + "/first"
			if sel.SampleIDs != nil {
				name = tc.name + "/ids"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				src, err := tc.open()
				require.NoError(t, err)
				defer src.Close()
				perUser := filepath.Join(t.TempDir(), "per-user.csv")
				res, err := evaluate.Run(context.Background(), src, evaluate.RunOptions{
					Metrics: metrics, PerUser: perUser, Debug: sel, Workers: 2})
				require.NoError(t, err)

				wantRows := []int64{0, 1, 2, 3, 4, 5, 6} // every user has targets
				wantMissing := []string(nil)
				if sel.SampleIDs != nil {
					wantRows = []int64{3, 311, 600} // in input order
					wantMissing = []string{"user-none"}
				}
				require.Len(t, res.Debug, len(wantRows))
				require.Equal(t, wantMissing, res.DebugMissing)

				csvIDs, csvVals := readPerUser(t, perUser)
				for i, d := range res.Debug {
					row := wantRows[i]
					require.Equal(t, row, d.Row)
					require.Equal(t, ids[row], d.SampleID)

					var wantItems []string
					for _, m := range ranked[row][:10] { // the required k
						wantItems = append(wantItems, tc.item+strconv.FormatInt(m, 10))
					}
					require.Equal(t, wantItems, d.Items)
					if tc.scores {
						require.Len(t, d.Scores, 10)
						for j, s := range d.Scores {
							require.InDelta(t, movieLensScore(j), s, 1e-7, "float32 in NumPy")
						}
					} else {
						require.Nil(t, d.Scores)
					}

					require.Equal(t, 10, d.TargetCount)
					if tc.name == "no-target-keeper" {
						require.Nil(t, d.Targets, "a source that cannot keep them lists none")
					} else {
						var want []string
						for _, m := range targets[row] {
							want = append(want, tc.item+strconv.FormatInt(m, 10))
						}
						require.ElementsMatch(t, want, d.Targets)
					}
					hits := []int{}
					for j, m := range ranked[row][:10] {
						if slices.Contains(targets[row], m) {
							hits = append(hits, j+1)
						}
					}
					require.Equal(t, hits, d.HitRanks)

					// The per-user file has every row, all with targets,
					// in input order: its line row+1 is this row.
					require.Equal(t, d.SampleID, csvIDs[row])
					require.Len(t, d.Values, len(res.Keys))
					for _, key := range res.Keys {
						require.Equal(t, math.Float64bits(csvVals[row][key]), math.Float64bits(d.Values[key]),
							"row %d key %s: %v in the debug row, %v in the per-user file", row, key, d.Values[key], csvVals[row][key])
					}
				}
			})
		}
	}
}

// TestRunDebugBounds checks the selections Run refuses.
func TestRunDebugBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sel  evaluate.DebugSelection
	}{
		{"too many rows", evaluate.DebugSelection{First: evaluate.MaxDebugRows + 1}},
		{"too many IDs", evaluate.DebugSelection{SampleIDs: make([]string, evaluate.MaxDebugRows+1)}},
		{"negative", evaluate.DebugSelection{First: -1}},
		{"both", evaluate.DebugSelection{First: 1, SampleIDs: []string{"0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := evaluate.Run(context.Background(), openFixtures(t, nil), evaluate.RunOptions{Debug: tc.sel})
			require.ErrorIs(t, err, evaluate.ErrBadDebug)
		})
	}
	res, err := evaluate.Run(context.Background(), openFixtures(t, nil), evaluate.RunOptions{Debug: evaluate.DebugSelection{First: evaluate.MaxDebugRows}})
	require.NoError(t, err)
	require.Len(t, res.Debug, 4, "the fixtures have 4 rows with targets")

	// A row of 1,500 predictions, with its hits at ranks 1 and 1,200, is
	// described up to MaxDebugItems.
	ranked := make([]int64, 1500)
	for i := range ranked {
		ranked[i] = int64(i)
	}
	src, err := evaluate.NewInMemoryRankings([]string{"u"}, [][]int64{ranked}, [][]int64{{0, 1199}}, 0)
	require.NoError(t, err)
	res, err = evaluate.Run(context.Background(), src, evaluate.RunOptions{
		Metrics: []evaluate.Metric{evaluate.HitRate(1500)}, Debug: evaluate.DebugSelection{First: 1}})
	require.NoError(t, err)
	require.Len(t, res.Debug[0].Items, evaluate.MaxDebugItems)
	require.Equal(t, []int{1}, res.Debug[0].HitRanks)
	require.Equal(t, 2, res.Debug[0].TargetCount)
}

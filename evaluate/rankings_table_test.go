package evaluate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

var _ evaluate.Rankings = (*evaluate.TableRankings)(nil)

// The long tables of these tests hold the NumPy fixtures' rankings
// (numpyRows) with sample IDs u0 to u5, plus u9, a sample of the targets
// without predictions. Lines are shuffled within each sample, and the
// targets' lines are in no order, with item 6 of u3 twice.
const (
	tablePredictionsRank = `sample_id,item,rank
u0,0,4
u0,3,1
u0,4,3
u0,1,2
u1,2,1
u1,5,2
u1,7,3
u1,9,4
u2,2,4
u2,8,3
u2,6,2
u2,0,1
u3,9,1
u3,8,2
u3,7,3
u3,6,4
u4,5,1
u4,4,2
u4,3,3
u4,2,4
u5,1,1
u5,2,2
u5,3,3
u5,4,4
`
	tableTargets = `sample_id,item
u3,6
u0,1
u9,7
u2,8
u3,1
u0,4
u4,5
u2,2
u3,6
`
)

// tableRows are the rows of the tables above.
var tableRows = append(withIDs(numpyRows, []string{"u0", "u1", "u2", "u3", "u4", "u5"}, 4), rankedRow{"u9", "....", 1})

// tablePrint is the fingerprint of tableTargets.
var tablePrint = targetsPrint(
	[]string{"u0", "1", "4"},
	[]string{"u2", "8", "2"},
	[]string{"u3", "6", "1"},
	[]string{"u4", "5"},
	[]string{"u9", "7"},
)

// scoresFor turns predictions with ranks into predictions with scores of
// 1/rank.
func scoresFor(ranks string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(ranks), "\n") {
		if i == 0 {
			b.WriteString("sample_id,item,score\n")
			continue
		}
		f := strings.Split(line, ",")
		b.WriteString(f[0] + "," + f[1] + "," + map[string]string{"1": "1", "2": "0.5", "3": "0.25", "4": "0.125"}[f[2]] + "\n")
	}
	return b.String()
}

type pqPrediction struct {
	SampleID string `parquet:"sample_id"`
	Item     int64  `parquet:"item"`
	Rank     int32  `parquet:"rank"`
}

type pqScored struct {
	Model    string  `parquet:"model"`
	SampleID string  `parquet:"sample_id"`
	Item     int32   `parquet:"item"`
	Score    float32 `parquet:"score"`
}

type pqTarget struct {
	SampleID string `parquet:"sample_id"`
	Item     uint16 `parquet:"item"`
}

// tableParquet writes the tables above as Parquet, with integer items, in
// row groups of 5 records. When id is not nil it rewrites the sample ID of
// the i-th record.
func tableParquet(t *testing.T, scored bool, id func(i int, id string) string) (predictions, targets string) {
	if id == nil {
		id = func(_ int, id string) string { return id }
	}
	var preds []pqPrediction
	var scoredPreds []pqScored
	for i, line := range strings.Split(strings.TrimSpace(tablePredictionsRank), "\n")[1:] {
		f := strings.Split(line, ",")
		f[0] = id(i, f[0])
		item, rank := int64(f[1][0]-'0'), int32(f[2][0]-'0')
		preds = append(preds, pqPrediction{SampleID: f[0], Item: item, Rank: rank})
		scoredPreds = append(scoredPreds, pqScored{Model: "m", SampleID: f[0], Item: int32(item), Score: 1 / float32(rank)})
	}
	var tgts []pqTarget
	for i, line := range strings.Split(strings.TrimSpace(tableTargets), "\n")[1:] {
		f := strings.Split(line, ",")
		f[0] = id(i, f[0])
		tgts = append(tgts, pqTarget{SampleID: f[0], Item: uint16(f[1][0] - '0')})
	}
	small := []parquet.WriterOption{parquet.MaxRowsPerRowGroup(5), parquet.PageBufferSize(64)}
	if scored {
		predictions = inputtest.WriteParquet(t, "predictions.parquet", scoredPreds, small...)
	} else {
		predictions = inputtest.WriteParquet(t, "predictions.parquet", preds, small...)
	}
	return predictions, inputtest.WriteParquet(t, "targets.parquet", tgts, small...)
}

func TestTableRankings(t *testing.T) {
	t.Parallel()
	csvFiles := func(predictions, targets string) func(t *testing.T) (string, string) {
		return func(t *testing.T) (string, string) {
			dir := writeFiles(t, map[string][]byte{"predictions.csv": []byte(predictions), "targets.csv": []byte(targets)})
			return filepath.Join(dir, "predictions.csv"), filepath.Join(dir, "targets.csv")
		}
	}
	tests := []struct {
		name    string
		files   func(t *testing.T) (predictions, targets string)
		opts    evaluate.RankingOptions
		rows    []rankedRow
		firsts  []int64
		width   int
		missing int
		print   string
	}{
		{
			name:  "CSV with ranks",
			files: csvFiles(tablePredictionsRank, tableTargets),
			rows:  tableRows, firsts: []int64{0}, width: 4, missing: 1, print: tablePrint,
		},
		{
			name:  "CSV with scores",
			files: csvFiles(scoresFor(tablePredictionsRank), tableTargets),
			rows:  tableRows, firsts: []int64{0}, width: 4, missing: 1, print: tablePrint,
		},
		{
			name: "gzipped TSV, CRLF, spaces, extra column, both rank and score: rank orders",
			files: func(t *testing.T) (string, string) {
				tsv := strings.ReplaceAll(strings.ReplaceAll(tablePredictionsRank, ",", "\t"), "\n", "\t-1\t x \r\n")
				tsv = strings.Replace(tsv, "\t-1\t x \r\n", "\tscore\tnote\r\n", 1)
				p := inputtest.WriteFile(t, "predictions.tsv.gz", []byte(tsv))
				tg := inputtest.WriteFile(t, "targets.csv", []byte(strings.ReplaceAll(tableTargets, ",", ", ")))
				return p, tg
			},
			rows: tableRows, firsts: []int64{0}, width: 4, missing: 1, print: tablePrint,
		},
		{
			name:  "Parquet with ranks, integer items",
			files: func(t *testing.T) (string, string) { return tableParquet(t, false, nil) },
			rows:  tableRows, firsts: []int64{0}, width: 4, missing: 1, print: tablePrint,
		},
		{
			name:  "Parquet with float32 scores, another column",
			files: func(t *testing.T) (string, string) { return tableParquet(t, true, nil) },
			rows:  tableRows, firsts: []int64{0}, width: 4, missing: 1, print: tablePrint,
		},
		{
			name:  "width 2, batches of 3",
			files: csvFiles(tablePredictionsRank, tableTargets),
			opts:  evaluate.RankingOptions{Width: 2, BatchSize: 3},
			rows:  withIDs(tableRows, nil, 2), firsts: []int64{0, 3, 6}, width: 2, missing: 1, print: tablePrint,
		},
		{
			name:  "width above every sample's predictions",
			files: csvFiles("sample_id,item,rank\na,x,1\n", "sample_id,item\na,x\n"),
			opts:  evaluate.RankingOptions{Width: 3},
			rows:  []rankedRow{{"a", "x..", 1}}, firsts: []int64{0}, width: 3,
			print: targetsPrint([]string{"a", "x"}),
		},
		{
			name: "ties by item ID descending, as text: 9 before 10",
			files: csvFiles("sample_id,item,score\na,10,1\na,9,1\na,11,2\nb,x,0.5\nb,y,0.5\n",
				"sample_id,item\na,10\nb,x\n"),
			rows: []rankedRow{{"a", "..x", 1}, {"b", ".x.", 1}}, firsts: []int64{0}, width: 3,
			print: targetsPrint([]string{"a", "10"}, []string{"b", "x"}),
		},
		{
			name:  "item IDs are text: 042 is not 42",
			files: csvFiles("sample_id,item,rank\na,042,1\na,42,2\na,4200000000,3\n", "sample_id,item\na,42\na,4200000000\n"),
			rows:  []rankedRow{{"a", ".xx", 2}}, firsts: []int64{0}, width: 3,
			print: targetsPrint([]string{"a", "42", "4200000000"}),
		},
		{
			name:  "ranks from 0, and with gaps",
			files: csvFiles("sample_id,item,rank\na,x,0\na,y,1\nb,z,10\nb,x,5\n", "sample_id,item\nb,z\n"),
			rows:  []rankedRow{{"a", "..", 0}, {"b", ".x", 1}}, firsts: []int64{0}, width: 2,
			print: targetsPrint([]string{"b", "z"}),
		},
		{
			name:  "a later sample with fewer predictions",
			files: csvFiles("sample_id,item,rank\na,x,1\na,y,2\nb,z,1\n", "sample_id,item\nb,z\n"),
			rows:  []rankedRow{{"a", "..", 0}, {"b", "x.", 1}}, firsts: []int64{0}, width: 2,
			print: targetsPrint([]string{"b", "z"}),
		},
		{
			name:  "without validation: extra predictions dropped, a repeated item counts twice",
			files: csvFiles("sample_id,item,rank\na,x,1\na,y,2\nb,z,1\nb,z,2\nb,y,2\n", "sample_id,item\nb,z\n"),
			opts:  evaluate.RankingOptions{SkipValidation: true},
			rows:  []rankedRow{{"a", "..", 0}, {"b", "xx", 1}}, firsts: []int64{0}, width: 2,
			print: targetsPrint([]string{"b", "z"}),
		},
		{
			name:  "no predictions",
			files: csvFiles("sample_id,item,rank\n", "sample_id,item\na,x\n"),
			rows:  []rankedRow{{"a", "", 1}}, firsts: []int64{0}, width: 0, missing: 1,
			print: targetsPrint([]string{"a", "x"}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			predictions, targets := tt.files(t)
			r, err := evaluate.OpenTableRankings(predictions, targets, tt.opts)
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, tt.width, r.Width())
			rows, firsts, err := readRankings(t, r)
			require.NoError(t, err)
			require.Equal(t, tt.rows, rows)
			require.Equal(t, tt.firsts, firsts)
			require.Equal(t, tt.missing, r.MissingSamples())
			require.Equal(t, tt.print, r.Targets().Sum())
			info, err := os.Stat(predictions)
			require.NoError(t, err)
			done, total := r.Progress()
			require.Equal(t, info.Size(), total)
			require.Equal(t, total, done)
			require.NoError(t, r.Close())
		})
	}
}

func TestTableRankingsBad(t *testing.T) {
	t.Parallel()
	const targets = "sample_id,item\na,x\n"
	tests := []struct {
		name        string
		predictions string
		targets     string
		parquet     func(t *testing.T, path string) // writes predictions.parquet, read instead
		opts        evaluate.RankingOptions
		want        string
	}{
		// The targets, the header of the predictions and the first sample
		// are read by OpenTableRankings, the rest by Next; the errors are
		// the same either way.
		{
			name: "empty predictions", predictions: "", targets: targets,
			want: "DIR/predictions.csv: the file is empty; it needs a header line naming its columns",
		},
		{
			name: "no item column", predictions: "sample_id,itm,rank\n", targets: targets,
			want: `DIR/predictions.csv: line 1: no "item" column among "sample_id", "itm", "rank"`,
		},
		{
			name: "no rank or score column", predictions: "sample_id,item\n", targets: targets,
			want: `DIR/predictions.csv: line 1: no "rank" or "score" column among "sample_id", "item"; the predictions need one to order each sample's items`,
		},
		{
			name: "no sample_id column in the targets", predictions: "sample_id,item,rank\n", targets: "user,item\n",
			want: `DIR/targets.csv: line 1: no "sample_id" column among "user", "item"`,
		},
		{
			name: "targets line of 1 field", predictions: "sample_id,item,rank\n", targets: "sample_id,item\na,x\nb\n",
			want: `DIR/targets.csv: line 3 (sample "b"): 1 field, but the header has 2`,
		},
		{
			name: "targets item missing", predictions: "sample_id,item,rank\n", targets: "sample_id,item\na,x\nb,\n",
			want: `DIR/targets.csv: line 3 (sample "b"): item missing`,
		},
		{
			name: "targets sample missing", predictions: "sample_id,item,rank\n", targets: "sample_id,item\n,x\n",
			want: `DIR/targets.csv: line 2: sample ID missing`,
		},
		{
			name: "targets quoting", predictions: "sample_id,item,rank\n", targets: "sample_id,item\na,x\"y\n",
			want: `DIR/targets.csv: line 2: bare " in non-quoted-field at character 4`,
		},
		{
			name: "first sample's bad record", predictions: "sample_id,item,rank\na,x,first\n", targets: targets,
			want: `DIR/predictions.csv: line 2 (row 0, sample "a"): rank "first" is not a number`,
		},
		{
			name: "rank column of strings in Parquet",
			parquet: func(t *testing.T, path string) {
				inputtest.WriteParquetAt(t, path, []struct {
					SampleID string `parquet:"sample_id"`
					Item     string `parquet:"item"`
					Rank     string `parquet:"rank"`
				}{{"a", "x", "1"}})
			},
			targets: targets,
			want:    `DIR/predictions.parquet: column "rank": has type STRING; it must be a float, double or integer`,
		},

		{
			name: "samples not grouped", predictions: "sample_id,item,rank\na,x,1\nb,x,1\nc,x,1\na,y,1\n", targets: targets,
			want: `DIR/predictions.csv: line 5 (row 3, sample "a"): sample "a" already had its predictions at row 0; the predictions must be grouped by sample_id, so sort them by sample_id first`,
		},
		{
			name: "item twice", predictions: "sample_id,item,rank\na,x,1\na,y,2\na,w,3\nb,z,1\nb,y,3\nb,z,2\n", targets: targets,
			want: `DIR/predictions.csv: line 7 (row 1, sample "b"): item "z" appears twice, on lines 5 and 7`,
		},
		{
			name: "rank twice", predictions: "sample_id,item,rank\na,x,1\na,y,2\nb,z,2\nb,y,2\n", targets: targets,
			want: `DIR/predictions.csv: line 5 (row 1, sample "b"): rank 2 appears twice, on lines 4 and 5`,
		},
		{
			name: "score not a number", predictions: "sample_id,item,score\na,x,high\n", targets: targets,
			want: `DIR/predictions.csv: line 2 (row 0, sample "a"): score "high" is not a number`,
		},
		{
			name: "item column of floats in Parquet",
			parquet: func(t *testing.T, path string) {
				inputtest.WriteParquetAt(t, path, []struct {
					SampleID string  `parquet:"sample_id"`
					Item     float64 `parquet:"item"`
					Rank     int64   `parquet:"rank"`
				}{{"a", 1, 1}})
			},
			targets: targets,
			want:    `DIR/predictions.parquet: column "item": has type DOUBLE; it must be a string or an integer`,
		},
		{
			name: "NaN score", predictions: "sample_id,item,score\na,x,1\na,y,NaN\n", targets: targets,
			want: `DIR/predictions.csv: line 3 (row 0, sample "a"): score NaN is not finite`,
		},
		{
			name: "infinite score in the next sample", predictions: "sample_id,item,score\na,x,1\nb,y,-inf\n", targets: targets, opts: evaluate.RankingOptions{Width: 1},
			want: `DIR/predictions.csv: line 3 (row 1, sample "b"): score -Inf is not finite`,
		},
		{
			name: "more predictions than the first sample", predictions: "sample_id,item,rank\na,x,1\na,y,2\nb,x,1\nb,y,2\nb,z,3\n", targets: targets,
			want: `DIR/predictions.csv: line 4 (row 1, sample "b"): 3 predictions, more than the 2 of the first sample; set the width (the largest cutoff) to read only the top ones`,
		},
		{
			name: "line of 2 fields", predictions: "sample_id,item,rank\na,x,1\na,y\n", targets: targets,
			want: `DIR/predictions.csv: line 3 (row 0, sample "a"): 2 fields, but the header has 3`,
		},
		{
			name: "item missing", predictions: "sample_id,item,rank\na,x,1\nb, ,1\n", targets: targets,
			want: `DIR/predictions.csv: line 3 (row 1, sample "b"): item missing`,
		},
		{
			name: "sample ID missing", predictions: "sample_id,item,rank\na,x,1\n,y,1\n", targets: targets,
			want: `DIR/predictions.csv: line 3 (row 1): sample ID missing`,
		},
		{
			name: "rank missing, without validation too", predictions: "sample_id,item,rank\na,x,1\na,y,\n", targets: targets,
			opts: evaluate.RankingOptions{SkipValidation: true},
			want: `DIR/predictions.csv: line 3 (row 0, sample "a"): rank missing`,
		},
		{
			name: "Parquet: item twice, by record",
			parquet: func(t *testing.T, path string) {
				inputtest.WriteParquetAt(t, path, []struct {
					SampleID string `parquet:"sample_id"`
					Item     string `parquet:"item"`
					Rank     int64  `parquet:"rank"`
				}{{"a", "x", 1}, {"a", "y", 2}, {"a", "x", 3}})
			},
			targets: targets,
			want:    `DIR/predictions.parquet: record 3 (row 0, sample "a"): item "x" appears twice, on records 1 and 3`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string][]byte{"predictions.csv": []byte(tt.predictions), "targets.csv": []byte(tt.targets)})
			predictions := filepath.Join(dir, "predictions.csv")
			if tt.parquet != nil {
				predictions = filepath.Join(dir, "predictions.parquet")
				tt.parquet(t, predictions)
			}
			r, err := evaluate.OpenTableRankings(predictions, filepath.Join(dir, "targets.csv"), tt.opts)
			if err == nil {
				defer r.Close()
				_, _, err = readRankings(t, r)
			}
			require.Equal(t, tt.want, badInput(t, dir, err))
		})
	}
}

func TestTableRankingsFiles(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string][]byte{
		"predictions.json":    []byte("{}"),
		"predictions.parquet": []byte("sample_id,item,rank\n"),
		"targets.csv":         []byte("sample_id,item\na,x\n"),
	})
	path := func(name string) string { return filepath.Join(dir, name) }

	_, err := evaluate.OpenTableRankings(path("predictions.json"), path("targets.csv"), evaluate.RankingOptions{})
	require.ErrorIs(t, err, evaluate.ErrUnknownFormat)
	require.Equal(t, "DIR/predictions.json: not a table by its name: a table must be .csv, .tsv (either may be gzipped, as .csv.gz) or .parquet",
		strings.ReplaceAll(err.Error(), dir, "DIR"))

	_, err = evaluate.OpenTableRankings(path("predictions.parquet"), path("targets.csv"), evaluate.RankingOptions{})
	require.Equal(t, "DIR/predictions.parquet: not a readable Parquet file: invalid magic header of parquet file: \"samp\"", badInput(t, dir, err))

	_, err = evaluate.OpenTableRankings(path("predictions.csv"), path("targets.csv"), evaluate.RankingOptions{})
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NotErrorIs(t, err, evaluate.ErrBadInput)
}

func TestTableRankingsParquetNulls(t *testing.T) {
	t.Parallel()
	type row struct {
		SampleID *string  `parquet:"sample_id,optional"`
		Item     *int64   `parquet:"item,optional"`
		Score    *float64 `parquet:"score,optional"`
	}
	a, one, half := "a", int64(1), 0.5
	tests := []struct {
		name string
		rows []row
		want string
	}{
		{"sample ID", []row{{&a, &one, &half}, {nil, &one, &half}}, `DIR/predictions.parquet: record 2 (row 1): sample ID missing`},
		{"item", []row{{&a, &one, &half}, {&a, nil, &half}}, `DIR/predictions.parquet: record 2 (row 0, sample "a"): item missing`},
		{"score", []row{{&a, &one, nil}}, `DIR/predictions.parquet: record 1 (row 0, sample "a"): score missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string][]byte{"targets.csv": []byte("sample_id,item\na,1\n")})
			inputtest.WriteParquetAt(t, filepath.Join(dir, "predictions.parquet"), tt.rows)
			r, err := evaluate.OpenTableRankings(filepath.Join(dir, "predictions.parquet"), filepath.Join(dir, "targets.csv"), evaluate.RankingOptions{})
			if err == nil {
				defer r.Close()
				_, _, err = readRankings(t, r)
			}
			require.Equal(t, tt.want, badInput(t, dir, err))
		})
	}
}

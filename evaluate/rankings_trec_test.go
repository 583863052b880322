package evaluate_test

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/evaluate"
)

var _ evaluate.Rankings = (*evaluate.TRECRankings)(nil)

// trecRows are the rows of testdata/rankings/trec.run against trec.qrels,
// derived by hand. Ties go to the greater document ID: d3 before d2 in q1,
// d9 before d10 in q2. q4 has only a non-relevant judgement and q5 none, so
// they are rows without targets; q3 is in the qrels only, so it comes last,
// with no hits.
//
// With binary relevance, as in these qrels, trec_eval -c gives the
// following values, also derived by hand (log2 discounts; ndcg_cut
// normalises by the ideal ranking of min(k, R) relevant documents):
//
//	query  P_5   recall_5  ndcg_cut_5  success_1
//	q1     0.6   1         0.9469      1          DCG 1 + 1/log2(3) + 1/log2(6) = 2.0178, ideal 1 + 1/log2(3) + 1/2 = 2.1309
//	q2     0.2   0.5       0.3869      0          DCG 1/log2(3) = 0.6309, ideal 1.6309
//	q3     0     0         0           0          not in the run
//	q6     0.4   1         0.6241      0          DCG 1/log2(3) + 1/log2(6) = 1.0178, ideal 1.6309
//	mean   0.3   0.625     0.4895      0.25       over q1, q2, q3 and q6, the rows with targets
//
// TestTRECRankingsTrecEvalValues checks that the metrics' precision@5,
// recall@5, ndcg@5 and hit_rate@1 of these rows come out the same.
var trecRows = []rankedRow{
	{"q1", "xx..x..", 3},
	{"q2", ".x.....", 2},
	{"q4", ".......", 0},
	{"q5", ".......", 0},
	{"q6", ".x..x..", 2},
	{"q3", ".......", 2},
}

// trecPrint is the fingerprint of trec.qrels.
var trecPrint = targetsPrint(
	[]string{"q1", "d1", "d3", "d5"},
	[]string{"q2", "d10", "d7"},
	[]string{"q3", "d2", "d9"},
	[]string{"q6", "d20", "d24"},
)

// reversedLines returns text with its lines in reverse order.
func reversedLines(text []byte) []byte {
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	slices.Reverse(lines)
	return []byte(strings.Join(lines, "\n") + "\n")
}

func TestTRECRankings(t *testing.T) {
	t.Parallel()
	run := fixtureBytes(t, "trec.run")
	qrels := fixtureBytes(t, "trec.qrels")
	cut := func(rows []rankedRow, width int) []rankedRow { return withIDs(rows, nil, width) }
	tests := []struct {
		name    string
		run     []byte
		qrels   []byte
		opts    evaluate.RankingOptions
		rows    []rankedRow
		firsts  []int64
		width   int
		grouped bool
		missing int
		print   string
	}{
		{
			name: "the fixture", run: run, qrels: qrels,
			rows: trecRows, firsts: []int64{0}, width: 7, grouped: true, missing: 1, print: trecPrint,
		},
		{
			name: "width 3, batches of 2", run: run, qrels: qrels,
			opts: evaluate.RankingOptions{Width: 3, BatchSize: 2},
			rows: cut(trecRows, 3), firsts: []int64{0, 2, 4}, width: 3, grouped: true, missing: 1, print: trecPrint,
		},
		{
			name: "lines in reverse: queries in run order, documents by score",
			run:  reversedLines(run), qrels: reversedLines(qrels),
			rows:   []rankedRow{trecRows[4], trecRows[3], trecRows[2], trecRows[1], trecRows[0], trecRows[5]},
			firsts: []int64{0}, width: 7, grouped: true, missing: 1, print: trecPrint,
		},
		{
			name:   "one query split in two",
			run:    []byte("a Q0 x 1 3 t\nb Q0 y 1 1 t\na Q0 z 2 2 t\na Q0 w 3 4 t\n"),
			qrels:  []byte("a 0 z 1\nb 0 y 1\n"),
			rows:   []rankedRow{{"a", "..x", 1}, {"b", "x..", 1}}, // w, x, z
			firsts: []int64{0}, width: 3, grouped: false,
			print: targetsPrint([]string{"a", "z"}, []string{"b", "y"}),
		},
		{
			name:   "tabs, CRLF, blank lines, no final newline",
			run:    []byte("\r\nq\tQ0\td1\t1\t2.5\tt\r\n\r\nq  Q0  d2  2  7  t"),
			qrels:  []byte("q\t0\td1\t1\r\n\r\n"),
			rows:   []rankedRow{{"q", ".x", 1}},
			firsts: []int64{0}, width: 2, grouped: true,
			print: targetsPrint([]string{"q", "d1"}),
		},
		{
			name:   "a document judged twice, relevant once, counts once",
			run:    []byte("q Q0 d1 1 1 t\nq Q0 d2 1 0 t\n"),
			qrels:  []byte("q 0 d1 0\nq 0 d1 2\nq 0 d1 1\nq 0 d2 -1\nq 0 d3 1\n"),
			rows:   []rankedRow{{"q", "x.", 2}},
			firsts: []int64{0}, width: 2, grouped: true,
			print: targetsPrint([]string{"q", "d1", "d3"}),
		},
		{
			name:   "without validation, a repeated document counts at each rank",
			run:    []byte("q Q0 d1 1 2 t\nq Q0 d1 2 1 t\nq Q0 d2 3 NaN t\n"),
			qrels:  []byte("q 0 d1 1\n"),
			opts:   evaluate.RankingOptions{SkipValidation: true},
			rows:   []rankedRow{{"q", "xx.", 1}},
			firsts: []int64{0}, width: 3, grouped: true,
			print: targetsPrint([]string{"q", "d1"}),
		},
		{
			name:   "empty run: every qrels query is missing",
			run:    nil,
			qrels:  []byte("q 0 d1 1\nr 0 d2 0\n"),
			rows:   []rankedRow{{"q", "", 1}},
			firsts: []int64{0}, width: 0, grouped: true, missing: 1,
			print: targetsPrint([]string{"q", "d1"}),
		},
		{
			name:   "both empty",
			firsts: nil, grouped: true,
			print: targetsPrint(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string][]byte{"run": tt.run, "qrels": tt.qrels})
			r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "run"), filepath.Join(dir, "qrels"), tt.opts)
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, tt.width, r.Width())
			require.Equal(t, tt.grouped, r.Grouped())
			rows, firsts, err := readRankings(t, r)
			require.NoError(t, err)
			require.Equal(t, tt.rows, rows)
			require.Equal(t, tt.firsts, firsts)
			require.Equal(t, tt.missing, r.MissingQueries())
			require.Equal(t, tt.print, r.Targets().Sum())
			done, total := r.Progress()
			require.Equal(t, int64(len(tt.run)), total)
			require.Equal(t, total, done)
			require.NoError(t, r.Close())
		})
	}
}

func TestTRECRankingsBad(t *testing.T) {
	t.Parallel()
	const (
		run   = "a Q0 d1 1 2 t\na Q0 d2 2 1 t\nb Q0 d1 1 5 t\n"
		qrels = "a 0 d1 1\nb 0 d2 1\n"
	)
	tests := []struct {
		name   string
		run    string
		qrels  string
		atOpen bool
		want   string
	}{
		{
			name: "qrels line of 3 fields", run: run, qrels: "a 0 d1 1\na 0 d2\n", atOpen: true,
			want: "DIR/qrels: line 2: 3 fields, but a qrels line has 4: query, iteration, document, relevance",
		},
		{
			name: "qrels line of 1 field", run: run, qrels: "a\n", atOpen: true,
			want: "DIR/qrels: line 1: 1 field, but a qrels line has 4: query, iteration, document, relevance",
		},
		{
			name: "qrels line of 6 fields", run: run, qrels: "a 0 d1 1 x y\n", atOpen: true,
			want: "DIR/qrels: line 1: more than 5 fields, but a qrels line has 4: query, iteration, document, relevance",
		},
		{
			name: "qrels relevance not an integer", run: run, qrels: "a 0 d1 1\n\nb 0 d2 high\n", atOpen: true,
			want: `DIR/qrels: line 3 (query "b"): relevance "high" is not an integer`,
		},
		{
			name: "run line of 5 fields", run: "a Q0 d1 1 2 t\na Q0 d2 2 1\n", qrels: qrels,
			want: `DIR/run: line 2 (row 0, query "a"): 5 fields, but a run line has 6: query, Q0, document, rank, score, run tag`,
		},
		{
			name: "first run line of 8 fields", run: "a Q0 d1 1 2 t x y\n", qrels: qrels,
			want: `DIR/run: line 1 (row 0, query "a"): more than 7 fields, but a run line has 6: query, Q0, document, rank, score, run tag`,
		},
		{
			name: "score not a number, in the second query", run: run + "b Q0 d3 2 high t\n", qrels: qrels,
			want: `DIR/run: line 4 (row 1, query "b"): score "high" is not a number`,
		},
		{
			name: "score not a number, first line of the next query", run: run + "c Q0 d3 2 high t\n", qrels: qrels,
			want: `DIR/run: line 4 (row 2, query "c"): score "high" is not a number`,
		},
		{
			name: "NaN score", run: "a Q0 d1 1 NaN t\n", qrels: qrels,
			want: `DIR/run: line 1 (row 0, query "a"): score "NaN" is not finite`,
		},
		{
			name: "infinite score", run: run + "b Q0 d3 2 1e999 t\n", qrels: qrels,
			want: `DIR/run: line 4 (row 1, query "b"): score "1e999" is not finite`,
		},
		{
			name: "document twice in a query", run: run + "b Q0 d4 2 3 t\nb Q0 d1 3 1 t\n", qrels: qrels,
			want: `DIR/run: line 5 (row 1, query "b"): document "d1" appears twice, on lines 3 and 5`,
		},
		{
			name: "document twice in a run not grouped by query", run: run + "a Q0 d3 3 0 t\nb Q0 d1 3 1 t\n", qrels: qrels,
			want: `DIR/run: line 5 (row 1, query "b"): document "d1" appears twice, on lines 3 and 5`,
		},
		{
			name: "bad line in a run not grouped by query", run: run + "a Q0 d3 3 x t\n", qrels: qrels, atOpen: true,
			want: `DIR/run: line 4 (row 0, query "a"): score "x" is not a number`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string][]byte{"run": []byte(tt.run), "qrels": []byte(tt.qrels)})
			r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "run"), filepath.Join(dir, "qrels"), evaluate.RankingOptions{})
			if tt.atOpen {
				require.Equal(t, tt.want, badInput(t, dir, err))
				return
			}
			require.NoError(t, err)
			defer r.Close()
			_, _, err = readRankings(t, r)
			require.Equal(t, tt.want, badInput(t, dir, err))
		})
	}
}

func TestTRECRankingsMissingFile(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string][]byte{"qrels": []byte("a 0 d1 1\n")})
	_, err := evaluate.OpenTRECRankings(filepath.Join(dir, "run"), filepath.Join(dir, "qrels"), evaluate.RankingOptions{})
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NotErrorIs(t, err, evaluate.ErrBadInput)
}

// TestTRECRankingsTrecEvalValues scores the TREC fixture with the metrics
// that trec_eval also computes, and checks them against the values derived
// by hand in the comment of trecRows.
func TestTRECRankingsTrecEvalValues(t *testing.T) {
	t.Parallel()
	const tol = 1e-12 // the values are formulas, not rounded decimals
	dir := filepath.Join("testdata", "rankings")
	r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "trec.run"), filepath.Join(dir, "trec.qrels"), evaluate.RankingOptions{})
	require.NoError(t, err)
	defer r.Close()
	ev, err := evaluate.NewEvaluator([]evaluate.Metric{evaluate.Precision(5), evaluate.Recall(5), evaluate.NDCG(5), evaluate.HitRate(1)})
	require.NoError(t, err)
	require.Equal(t, []string{"precision@5", "recall@5", "ndcg@5", "hit_rate@1"}, ev.Keys())

	l3, l6 := math.Log2(3), math.Log2(6)
	// trec_eval -c: P_5, recall_5, ndcg_cut_5, success_1 per query.
	want := map[string][]float64{
		"q1": {0.6, 1, (1 + 1/l3 + 1/l6) / (1 + 1/l3 + 0.5), 1},
		"q2": {0.2, 0.5, (1 / l3) / (1 + 1/l3), 0},
		"q3": {0, 0, 0, 0},
		"q6": {0.4, 1, (1/l3 + 1/l6) / (1 + 1/l3), 0},
	}
	sum := ev.NewSummary()
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		vals, err := ev.Score(b, nil)
		require.NoError(t, err)
		sum.Add(b, vals)
		for i, id := range b.SampleIDs {
			w, ok := want[id]
			if !ok {
				require.Zero(t, b.Relevant[i], "query %s", id)
				continue
			}
			for j, v := range vals[i*4 : (i+1)*4] {
				require.True(t, scalar.EqualWithinAbs(w[j], v, tol), "query %s, %s: want %v, got %v", id, ev.Keys()[j], w[j], v)
			}
		}
	}
	require.Equal(t, int64(6), sum.Rows())
	require.Equal(t, int64(4), sum.ScoredRows())
	for j, mean := range []float64{
		0.3,
		0.625,
		((1+1/l3+1/l6)/(1+1/l3+0.5) + (1/l3)/(1+1/l3) + (1/l3+1/l6)/(1+1/l3)) / 4,
		0.25,
	} {
		require.True(t, scalar.EqualWithinAbs(mean, sum.Mean(j), tol), "%s: want %v, got %v", ev.Keys()[j], mean, sum.Mean(j))
	}
}

package evaluate_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
)

// Scores and ranks are read as Python, NumPy and pandas write numbers, and
// nothing else: 1_0 was read as 10 and 0x1p-2 as 0.25.
func TestLenientNumbersRefused(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"1_0", "0x1p-2", "0x10", "1e", "1.5.2", "12abc", "+nan"} {
		t.Run("table score "+text, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string][]byte{
				"predictions.csv": []byte("sample_id,item,score\nu1,i1,0.5\nu1,i2," + text + "\n"),
				"targets.csv":     []byte("sample_id,item\nu1,i1\n"),
			})
			r, err := evaluate.OpenTableRankings(filepath.Join(dir, "predictions.csv"), filepath.Join(dir, "targets.csv"), evaluate.RankingOptions{})
			if err == nil {
				defer r.Close()
				_, _, err = readRankings(t, r)
			}
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, filepath.Join(dir, "predictions.csv")+`: line 3 (row 0, sample "u1"): score "`+text+`" is not a number`)
		})
		t.Run("table rank "+text, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string][]byte{
				"predictions.csv": []byte("sample_id,item,rank\nu1,i1,1\nu1,i2," + text + "\n"),
				"targets.csv":     []byte("sample_id,item\nu1,i1\n"),
			})
			r, err := evaluate.OpenTableRankings(filepath.Join(dir, "predictions.csv"), filepath.Join(dir, "targets.csv"), evaluate.RankingOptions{})
			if err == nil {
				defer r.Close()
				_, _, err = readRankings(t, r)
			}
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, filepath.Join(dir, "predictions.csv")+`: line 3 (row 0, sample "u1"): rank "`+text+`" is not a number`)
		})
		t.Run("trec score "+text, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string][]byte{
				"trec.run":   []byte("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 " + text + " tag\n"),
				"trec.qrels": []byte("q1 0 d1 1\n"),
			})
			r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "trec.run"), filepath.Join(dir, "trec.qrels"), evaluate.RankingOptions{})
			if err == nil {
				defer r.Close()
				_, _, err = readRankings(t, r)
			}
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, filepath.Join(dir, "trec.run")+`: line 2 (row 0, query "q1"): score "`+text+`" is not a number`)
		})
	}
}

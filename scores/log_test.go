package scores_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// openStore opens a fresh database of its own for t.
func openStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	url := storetest.NewDatabase(t)
	st, err := store.Open(context.Background(), url, store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return st, url
}

// TestLog logs score files in both forms to a real database, and locates
// a duplicate the database found in the file.
func TestLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, url := openStore(t)
	tests := []struct {
		name    string
		file    string
		content string
		units   int64
		draws   int
		wantErr string // after the file's directory
	}{
		{name: "wide", file: "wide.csv", content: "sample_id,ndcg@10\nu1,0.5\nu2,0.25\n", units: 2, draws: 1},
		{name: "wide with draws", file: "draws.tsv", content: "sample_id\tdraw\tndcg@10\nu1\t0\t0.5\nu1\t1\t0.25\nu2\t0\t1\n", units: 2, draws: 2},
		{name: "long", file: "long.jsonl", content: `{"sample_id": "u1", "metric": "a", "value": 1}` + "\n" + `{"sample_id": "u2", "metric": "a", "value": 0}` + "\n", units: 2, draws: 1},
		{
			name: "a duplicate far apart", file: "dup.csv", content: "sample_id,ndcg@10\nu2,1\nu1,1\nu2,0\n",
			wantErr: `dup.csv: line 4 (first at {dir}/dup.csv: line 2): duplicate row: sample "u2" occurs more than once`,
		},
		{
			name: "a duplicate whose IDs differ in surrounding spaces only", file: "dup2.csv", content: "sample_id,ndcg@10\n\"u1 \",1\nu2,1\n u1,0\n",
			wantErr: `dup2.csv: line 4 (first at {dir}/dup2.csv: line 2): duplicate row: sample "u1" occurs more than once`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			in, err := scores.OpenScores(path, "")
			require.NoError(t, err)
			defer in.Close()
			got, err := in.Log(ctx, st, store.NewEvaluation{Experiment: "e", Run: tt.name, EvalSet: "test"})
			if tt.wantErr != "" {
				require.EqualError(t, err, inDir(path, strings.ReplaceAll(tt.wantErr, "{dir}", filepath.Dir(path))))
				require.ErrorIs(t, err, store.ErrBadInput)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.units, got.Units)
			require.Equal(t, tt.draws, got.Protocol.EvalDraws)
		})
	}
	require.Equal(t, 3, storetest.Scalar[int](t, url, `SELECT count(*) FROM evaluations`), "the duplicates logged nothing")
}

package scores_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/scores"
)

// TestWriterRoundTrip writes rows with IDs and metric names that need
// quoting and values that need every digit, and reads them back with
// OpenScores: the same IDs, and bit for bit the same values. (The smallest
// value is the smallest a real (float4) holds: below it OpenScores refuses
// a value that the store would keep as 0.)
func TestWriterRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "per-user.csv")
	metrics := []string{"ndcg@10", `odd,"name"`}
	rows := []wideRow{
		{ID: "u1", Values: []float64{0.1, 1.0 / 3}},
		{ID: `say "hi", twice`, Values: []float64{math.SmallestNonzeroFloat32, math.Copysign(0, -1)}},
		{ID: "multi\nline", Values: []float64{1e300, 0}},
	}
	w, err := scores.Create(path, metrics)
	require.NoError(t, err)
	for _, r := range rows {
		w.Write(r.ID, r.Values)
	}
	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "closing again does nothing")

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "sample_id,ndcg@10,\"odd,\"\"name\"\"\"\n"+
		"u1,0.1,0.3333333333333333\n"+
		"\"say \"\"hi\"\", twice\",1.401298464324817e-45,-0\n"+
		"\"multi\nline\",1e+300,0\n", string(b))

	got, err := readWide(t, path, "")
	require.NoError(t, err)
	require.Equal(t, metrics, got.Metrics)
	require.Len(t, got.Rows, len(rows))
	for i, r := range rows {
		require.Equal(t, r.ID, got.Rows[i].ID)
		for j, v := range r.Values {
			require.Equal(t, math.Float64bits(v), math.Float64bits(got.Rows[i].Values[j]), "row %d value %d", i, j)
		}
	}
}

func TestCreateRefuses(t *testing.T) {
	t.Parallel()
	_, err := scores.Create(filepath.Join(t.TempDir(), "absent", "per-user.csv"), []string{"a"})
	require.ErrorIs(t, err, os.ErrNotExist)
}

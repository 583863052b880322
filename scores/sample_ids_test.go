package scores_test

import (
	"archive/zip"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// paddedIDs are sample IDs with white space around them, as hand-edited or
// fixed-width exports write them, and trimmedIDs what every reader makes of
// them: the same IDs that evaluate's readers return, so that a user's
// values logged here pair with an evaluation verdict computed.
var (
	paddedIDs  = []string{" u1", "u2 ", "\tu 3\u00a0", "u4"}
	trimmedIDs = []string{"u1", "u2", "u 3", "u4"}
)

func TestSampleIDsTrimmed(t *testing.T) {
	t.Parallel()
	var quoted strings.Builder
	quoted.WriteString("sample_id,ndcg@10\n")
	for i, id := range paddedIDs {
		fmt.Fprintf(&quoted, "\"%s\",%d\n", id, i)
	}
	tests := []struct {
		name  string
		write func(t *testing.T) string
	}{
		{name: "csv, quoted", write: func(t *testing.T) string { return inputtest.WriteFile(t, "scores.csv", []byte(quoted.String())) }},
		{name: "csv, unquoted", write: func(t *testing.T) string {
			return inputtest.WriteFile(t, "scores.csv", []byte("sample_id,ndcg@10\n u1,0\nu2 ,1\n\tu 3\u00a0,2\nu4,3\n"))
		}},
		{name: "tsv, gzipped", write: func(t *testing.T) string {
			return inputtest.WriteFile(t, "scores.tsv.gz", []byte("sample_id\tndcg@10\n u1\t0\nu2 \t1\n\"\tu 3\u00a0\"\t2\nu4\t3\n"))
		}},
		{name: "jsonl, with and without escapes", write: func(t *testing.T) string {
			return inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": " u1", "ndcg@10": 0}
{"sample_id": "u2 ", "ndcg@10": 1}
{"sample_id": "\tu 3\u00a0", "ndcg@10": 2}
{"sample_id": "u4", "ndcg@10": 3}
`))
		}},
		{name: "parquet", write: func(t *testing.T) string {
			rows := make([]pqWide, len(paddedIDs))
			for i, id := range paddedIDs {
				rows[i] = pqWide{SampleID: id, NDCG: float64(i)}
			}
			return inputtest.WriteParquet(t, "scores.parquet", rows)
		}},
		{name: "npz", write: func(t *testing.T) string {
			return inputtest.WriteNPZ(t, "scores.npz", zip.Deflate,
				inputtest.Array("sample_id", inputtest.NPY(1, "'<U5'", "(4,)", inputtest.Strings(5, paddedIDs...))),
				inputtest.Array("ndcg@10", inputtest.NPY(1, "'<f8'", "(4,)", inputtest.Float64s(0, 1, 2, 3))))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := readWide(t, tt.write(t), "")
			require.NoError(t, err)
			var ids []string
			for i, r := range got.Rows {
				ids = append(ids, r.ID)
				require.Equal(t, float64(i), r.Values[0])
			}
			require.Equal(t, trimmedIDs, ids)
		})
	}
}

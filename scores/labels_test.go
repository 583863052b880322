package scores_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

func TestReadLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		content string
		want    []store.Label
		wantErr string // after the file's directory
	}{
		{
			name: "labels", file: "labels.csv", content: "sample_id,label\ns1,1\ns2,0\n",
			want: []store.Label{{SampleID: "s1", Label: 1}, {SampleID: "s2", Label: 0}},
		},
		{
			name: "columns in any order, among others; IDs trimmed as in score files", file: "labels.csv.gz",
			content: "label,weight,sample_id\n1,0.5, s1\n0,1,\"s2 \"\n",
			want:    []store.Label{{SampleID: "s1", Label: 1}, {SampleID: "s2", Label: 0}},
		},
		{name: "header only", file: "labels.csv", content: "sample_id,label\n"},
		{
			name: "no label column", file: "labels.csv", content: "sample_id,y\ns1,1\n",
			wantErr: `labels.csv: line 1: want the columns sample_id and label, not "sample_id", "y"`,
		},
		{
			name: "empty", file: "labels.csv", content: "",
			wantErr: `labels.csv: the file is empty; it needs a header line sample_id,label`,
		},
		{
			name: "a label that is not 0 or 1", file: "labels.csv", content: "sample_id,label\ns1,1\ns2,yes\n",
			wantErr: `labels.csv: line 3 (sample "s2"), column "label": label "yes" is not 0 or 1`,
		},
		{
			name: "a ragged line", file: "labels.csv", content: "sample_id,label\ns1\n",
			wantErr: `labels.csv: line 2: 1 field, but the header has 2`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			got, err := scores.ReadLabels(path)
			if tt.wantErr != "" {
				require.EqualError(t, err, inDir(path, tt.wantErr))
				require.ErrorIs(t, err, scores.ErrBadInput)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}

	_, err := scores.ReadLabels(filepath.Join(t.TempDir(), "absent.csv"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

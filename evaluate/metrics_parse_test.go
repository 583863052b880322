package evaluate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
)

func TestParseMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		specs []string
		want  [][]string // each metric's keys
	}{
		{name: "one", specs: []string{"ndcg@10"}, want: [][]string{{"ndcg@10"}}},
		{
			name:  "shorthand",
			specs: []string{"ndcg@10,20,50"},
			want:  [][]string{{"ndcg@10", "ndcg@20", "ndcg@50"}},
		},
		{
			name:  "several in one spec",
			specs: []string{"ndcg@10,20,recall@5,map@100"},
			want:  [][]string{{"ndcg@10", "ndcg@20"}, {"recall@5"}, {"map@100"}},
		},
		{
			name:  "several specs, every metric",
			specs: []string{"calibrated_recall@20", "hit_rate@1", "mrr@10", "precision@5", "recall@20", "ndcg@20", "map@20"},
			want: [][]string{
				{"calibrated_recall@20"}, {"hit_rate@1"}, {"mrr@10"}, {"precision@5"},
				{"recall@20"}, {"ndcg@20"}, {"map@20"},
			},
		},
		{
			name:  "duplicates merged, cutoffs sorted, first appearance first",
			specs: []string{"recall@20", "ndcg@50,10", "recall@10,20", "ndcg@10"},
			want:  [][]string{{"recall@10", "recall@20"}, {"ndcg@10", "ndcg@50"}},
		},
		{
			name:  "case and spaces",
			specs: []string{" NDCG@10, 20 ", "Hit_Rate @ 5"},
			want:  [][]string{{"ndcg@10", "ndcg@20"}, {"hit_rate@5"}},
		},
		{name: "largest cutoff", specs: []string{"precision@1000000"}, want: [][]string{{"precision@1000000"}}},
		{name: "none", specs: nil, want: [][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			metrics, err := evaluate.ParseMetrics(tt.specs)
			require.NoError(t, err)
			got := [][]string{}
			for _, m := range metrics {
				got = append(got, m.Keys())
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseMetricsErrors(t *testing.T) {
	t.Parallel()
	const known = "ndcg, recall, calibrated_recall, precision, hit_rate, mrr, map and coverage"
	tests := []struct {
		name  string
		specs []string
		want  string
	}{
		{
			name:  "unknown name",
			specs: []string{"ndcg@10", "ndgc@10"},
			want:  `bad metric "ndgc@10": unknown name "ndgc"; the metrics are ` + known,
		},
		{
			name:  "no cutoff",
			specs: []string{"ndcg"},
			want:  `bad metric "ndcg": ndcg has no cutoff; write it as ndcg@10, or ndcg@10,20,50 for several`,
		},
		{
			name:  "cutoff before any name",
			specs: []string{"10,ndcg@20"},
			want:  `bad metric "10,ndcg@20": "10" is not a metric; the metrics are ` + known + `, each followed by @ and a cutoff`,
		},
		{
			name:  "shorthand does not carry over to the next spec",
			specs: []string{"ndcg@10", "20"},
			want:  `bad metric "20": "20" is not a metric; the metrics are ` + known + `, each followed by @ and a cutoff`,
		},
		{
			name:  "a name without @ after a cutoff",
			specs: []string{"ndcg@10,recall"},
			want:  `bad metric "ndcg@10,recall": recall has no cutoff; write it as recall@10, or recall@10,20,50 for several`,
		},
		{
			name:  "garbage after a cutoff",
			specs: []string{"ndcg@10,top"},
			want:  `bad metric "ndcg@10,top": "top" is not a metric; the metrics are ` + known + `, each followed by @ and a cutoff`,
		},
		{
			name:  "zero cutoff",
			specs: []string{"recall@0"},
			want:  `bad metric "recall@0": cutoff "0" is not a whole number from 1 to 1000000`,
		},
		{
			name:  "zero cutoff in shorthand",
			specs: []string{"recall@5,0"},
			want:  `bad metric "recall@5,0": cutoff "0" is not a whole number from 1 to 1000000`,
		},
		{
			name:  "negative cutoff",
			specs: []string{"mrr@-3"},
			want:  `bad metric "mrr@-3": cutoff "-3" is not a whole number from 1 to 1000000`,
		},
		{
			name:  "cutoff too large",
			specs: []string{"map@1000001"},
			want:  `bad metric "map@1000001": cutoff "1000001" is not a whole number from 1 to 1000000`,
		},
		{
			name:  "fractional cutoff",
			specs: []string{"precision@2.5"},
			want:  `bad metric "precision@2.5": cutoff "2.5" is not a whole number from 1 to 1000000`,
		},
		{
			name:  "empty cutoff",
			specs: []string{"ndcg@"},
			want:  `bad metric "ndcg@": cutoff "" is not a whole number from 1 to 1000000`,
		},
		{
			name:  "empty spec",
			specs: []string{""},
			want:  `bad metric "": empty item; write specs as ndcg@10, or ndcg@10,20,50 for several cutoffs`,
		},
		{
			name:  "trailing comma",
			specs: []string{"ndcg@10,"},
			want:  `bad metric "ndcg@10,": empty item; write specs as ndcg@10, or ndcg@10,20,50 for several cutoffs`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			metrics, err := evaluate.ParseMetrics(tt.specs)
			require.ErrorIs(t, err, evaluate.ErrBadMetric)
			require.EqualError(t, err, tt.want)
			require.Nil(t, metrics)
		})
	}
}

func TestDefaultMetrics(t *testing.T) {
	t.Parallel()
	var keys []string
	for _, m := range evaluate.DefaultMetrics(100) {
		keys = append(keys, m.Keys()...)
	}
	require.Equal(t, []string{"calibrated_recall@100", "ndcg@100"}, keys)
}

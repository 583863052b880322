package classify_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/classify"
)

func TestBinaryErrors(t *testing.T) {
	t.Parallel()
	labels := []int8{0, 1, 0, 1}
	probs := []float64{0.1, 0.8, 0.4, 0.6}
	tests := []struct {
		name    string
		metrics []string // all binary metrics when empty
		labels  []int8
		scores  []float64
		opts    classify.Options
		wantErr error
	}{
		{name: "lengths differ", labels: labels, scores: probs[:3], wantErr: classify.ErrLengths},
		{name: "empty", labels: []int8{}, scores: []float64{}, wantErr: classify.ErrEmpty},
		{name: "NaN score", labels: labels, scores: []float64{0.1, math.NaN(), 0.4, 0.6}, wantErr: classify.ErrNotFinite},
		{name: "Inf score", labels: labels, scores: []float64{0.1, 0.8, math.Inf(-1), 0.6}, wantErr: classify.ErrNotFinite},
		{name: "label 2", labels: []int8{0, 2, 0, 1}, scores: probs, wantErr: classify.ErrLabel},
		{name: "label -1", labels: []int8{0, 1, -1, 1}, scores: probs, wantErr: classify.ErrLabel},
		{
			name: "score above 1", metrics: []string{"log_loss", "brier", "ece"},
			labels: labels, scores: []float64{0.1, 1.5, 0.4, 0.6}, wantErr: classify.ErrNotProbability,
		},
		{
			name: "score below 0", metrics: []string{"log_loss", "brier", "ece"},
			labels: labels, scores: []float64{0.1, 0.8, -0.01, 0.6}, wantErr: classify.ErrNotProbability,
		},
		{
			name: "only positives", metrics: []string{"roc_auc", "average_precision"},
			labels: []int8{1, 1, 1, 1}, scores: probs, wantErr: classify.ErrSingleClass,
		},
		{
			name: "only negatives", metrics: []string{"roc_auc", "average_precision"},
			labels: []int8{0, 0}, scores: probs[:2], wantErr: classify.ErrSingleClass,
		},
		{
			name: "NaN threshold", metrics: []string{"accuracy", "precision", "recall", "f1"},
			labels: labels, scores: probs, opts: classify.Options{Threshold: math.NaN(), Bins: 10}, wantErr: classify.ErrBadParameter,
		},
		{
			name: "0 bins", metrics: []string{"ece"},
			labels: labels, scores: probs, opts: classify.Options{Threshold: 0.5}, wantErr: classify.ErrBadParameter,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			names := tt.metrics
			if len(names) == 0 {
				for _, m := range classify.Metrics() {
					if m.Binary != nil {
						names = append(names, m.Name)
					}
				}
			}
			opts := tt.opts
			if opts == (classify.Options{}) {
				opts = classify.DefaultOptions()
			}
			for _, name := range names {
				m, err := classify.ParseMetric(name)
				require.NoError(t, err)
				_, err = m.Binary(tt.labels, tt.scores, opts)
				require.ErrorIs(t, err, tt.wantErr, name)
			}
		})
	}
}

func TestMulticlassErrors(t *testing.T) {
	t.Parallel()
	labels := []int32{0, 1, 2}
	probs := []float64{
		0.7, 0.2, 0.1,
		0.1, 0.8, 0.1,
		0.3, 0.3, 0.4,
	}
	tests := []struct {
		name    string
		metrics []string // all multi-class metrics when empty
		labels  []int32
		probs   []float64
		k       int
		wantErr error
	}{
		{name: "one class", labels: []int32{0, 0}, probs: []float64{1, 1}, k: 1, wantErr: classify.ErrBadParameter},
		{name: "short matrix", labels: labels, probs: probs[:8], k: 3, wantErr: classify.ErrLengths},
		{name: "empty", labels: []int32{}, probs: []float64{}, k: 3, wantErr: classify.ErrEmpty},
		{name: "class 3 of 3", labels: []int32{0, 3, 2}, probs: probs, k: 3, wantErr: classify.ErrLabel},
		{name: "class -1", labels: []int32{0, -1, 2}, probs: probs, k: 3, wantErr: classify.ErrLabel},
		{name: "NaN", labels: labels, probs: []float64{0.7, 0.2, 0.1, 0.1, math.NaN(), 0.1, 0.3, 0.3, 0.4}, k: 3, wantErr: classify.ErrNotFinite},
		{
			name: "logits", metrics: []string{"log_loss"},
			labels: labels, probs: []float64{2, -1, 0, 0, 1, 0, 0, 0, 0.5}, k: 3, wantErr: classify.ErrNotProbability,
		},
		{
			name: "row sums to 0.9", metrics: []string{"log_loss"},
			labels: labels, probs: []float64{0.7, 0.2, 0.1, 0.1, 0.7, 0.1, 0.3, 0.3, 0.4}, k: 3, wantErr: classify.ErrRowSum,
		},
		{
			name: "class 1 absent", metrics: []string{"macro_roc_auc"},
			labels: []int32{0, 2, 2}, probs: probs, k: 3, wantErr: classify.ErrSingleClass,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			names := tt.metrics
			if len(names) == 0 {
				for _, m := range classify.Metrics() {
					if m.Multiclass != nil {
						names = append(names, m.Name)
					}
				}
			}
			for _, name := range names {
				m, err := classify.ParseMetric(name)
				require.NoError(t, err)
				_, err = m.Multiclass(tt.labels, tt.probs, tt.k, classify.DefaultOptions())
				require.ErrorIs(t, err, tt.wantErr, name)
			}
		})
	}
}

// TestRowSumTolerance checks that rows within RowSumTolerance of 1 are
// accepted, as float32 softmax outputs are, and rows just beyond are not.
func TestRowSumTolerance(t *testing.T) {
	t.Parallel()
	labels := []int32{0, 1}
	within := []float64{0.6 + 0.9e-6, 0.4, 0.3, 0.7 - 0.9e-6}
	_, err := classify.MulticlassLogLoss(labels, within, 2)
	require.NoError(t, err)
	beyond := []float64{0.6 + 1.1e-6, 0.4, 0.3, 0.7}
	_, err = classify.MulticlassLogLoss(labels, beyond, 2)
	require.ErrorIs(t, err, classify.ErrRowSum)
}

func TestSingleClassDefined(t *testing.T) {
	t.Parallel()
	// The probability and threshold metrics have a value with one class.
	labels := []int8{1, 1, 1}
	probs := []float64{0.9, 0.6, 0.3}
	for _, name := range []string{"log_loss", "brier", "accuracy", "precision", "recall", "f1", "ece"} {
		m, err := classify.ParseMetric(name)
		require.NoError(t, err)
		v, err := m.Binary(labels, probs, classify.DefaultOptions())
		require.NoError(t, err, name)
		require.False(t, math.IsNaN(v), name)
	}
}

func TestBinaryLabels(t *testing.T) {
	t.Parallel()
	got, err := classify.BinaryLabels([]float64{0, 1, 1, 0})
	require.NoError(t, err)
	require.Equal(t, []int8{0, 1, 1, 0}, got)
	for _, bad := range []float64{0.5, 2, -1, math.NaN()} {
		_, err := classify.BinaryLabels([]float64{0, bad})
		require.ErrorIs(t, err, classify.ErrLabel, "%v", bad)
	}
}

func TestParseMetric(t *testing.T) {
	t.Parallel()
	m, err := classify.ParseMetric(" Log_Loss ")
	require.NoError(t, err)
	require.Equal(t, "log_loss", m.Name)
	require.True(t, m.LowerIsBetter)
	require.NotNil(t, m.Binary)
	require.NotNil(t, m.Multiclass)

	// The short names of `verdict stats paired-bootstrap --metric`.
	for short, full := range map[string]string{"auc": "roc_auc", " AP ": "average_precision", "logloss": "log_loss"} {
		m, err := classify.ParseMetric(short)
		require.NoError(t, err, short)
		require.Equal(t, full, m.Name)
	}
	_, err = classify.ParseMetric("gini")
	require.ErrorIs(t, err, classify.ErrUnknownMetric)
	require.ErrorContains(t, err, "roc_auc, average_precision, log_loss")

	lower := map[string]bool{}
	for _, m := range classify.Metrics() {
		require.True(t, m.Binary != nil || m.Multiclass != nil, m.Name)
		lower[m.Name] = m.LowerIsBetter
	}
	require.Equal(t, map[string]bool{
		"roc_auc": false, "average_precision": false, "log_loss": true, "brier": true,
		"accuracy": false, "precision": false, "recall": false, "f1": false, "ece": true,
		"macro_f1": false, "micro_f1": false, "macro_roc_auc": false,
	}, lower)
}

package report_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// TestNoteTextSaysEveryNote checks that every note package stats can
// return has a sentence, and that notes about a number name it.
func TestNoteTextSaysEveryNote(t *testing.T) {
	t.Parallel()
	for _, n := range []stats.Note{
		{Code: stats.NoteAllDifferencesZero}, {Code: stats.NoteConstantDifference, Value: 0.25},
		{Code: stats.NotePosteriorPointMass, Value: 0.25}, {Code: stats.NoteIndependentFolds},
		{Code: stats.NotePlacementsAgree}, {Code: stats.NoteAUCVarianceZero}, {Code: stats.NoteAllBlocksTied},
		{Code: stats.NoteIdenticalRankings}, {Code: stats.NoteNoDiscordantPairs}, {Code: stats.NoteContinuityClamped},
		{Code: stats.NoteWorstCaseVariance}, {Code: stats.NoteFoldPairsEqual}, {Code: stats.NoteZerosDropped, Value: 2},
		{Code: stats.NoteApproxManyPairs}, {Code: stats.NoteApproxZeros}, {Code: stats.NoteApproxTies},
		{Code: stats.NoteExactWithTies}, {Code: stats.NoteApproxFewPairs, Value: 3},
	} {
		text := report.NoteText(n)
		require.NotEqual(t, string(n.Code), text, "%s has no sentence", n.Code)
		require.Greater(t, len(strings.Fields(text)), 5, n.Code)
		if n.Value != 0 {
			require.Contains(t, text, map[float64]string{0.25: "0.25", 2: "2", 3: "3"}[n.Value], n.Code)
		}
	}
	require.Equal(t, "some-new-note (7)", report.NoteText(stats.Note{Code: "some-new-note", Value: 7}), "an unknown code still says something")
}

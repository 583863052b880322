package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// The margin gates fail a CI job in words a reader of its log understands.
// The candidate is worse by 67·0.25/200 = 0.084 on a (logScores): shown
// worse than a margin of 0.01, and within ±0.5: equivalent, which passes the stricter gate.
func TestMarginGates(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logScores(t, url, "base", 0)
	logScores(t, url, "worse", -0.25)

	res := runVerdict(t, url, "compare", "-e", "exp", "-m", "a", "--margin", "0.01", "--fail-on", "regression-beyond-margin", "--no-record", "base", "worse")
	require.Equal(t, exitGate, res.code, res.stderr)
	require.Contains(t, res.stderr, "the candidate is shown worse than the baseline by more than the margin 0.01 on a (--fail-on regression-beyond-margin)")

	res = runVerdict(t, url, "compare", "-e", "exp", "-m", "a", "--margin", "0.01", "--fail-on", "unproven-non-inferiority", "--no-record", "base", "worse")
	require.Equal(t, exitGate, res.code, res.stderr)
	require.Contains(t, res.stderr, "the candidate is not shown non-inferior within the margin 0.01 on a: inferior (--fail-on unproven-non-inferiority)")

	res = runVerdict(t, url, "compare", "-e", "exp", "-m", "a", "--margin", "0.5", "--fail-on", "unproven-non-inferiority", "--no-record", "base", "worse")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "worse is equivalent to base on a within the margin ±0.5", "equivalence is non-inferiority and more")

	res = runVerdict(t, url, "compare", "-e", "exp", "-m", "a", "--fail-on", "regression-beyond-margin", "--no-record", "base", "worse")
	require.Equal(t, exitError, res.code, "a margin gate needs a margin")
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/demo"
)

// movieLensArgs writes the demo's top-k rankings of model ("popularity" or
// "knn") for the 610 users as long tables, with a score column of 1/(rank+1),
// and returns the input flags of `verdict evaluate` that read them.
func movieLensArgs(t *testing.T, model string, k int) []string {
	t.Helper()
	s, err := demo.DemoSplit()
	require.NoError(t, err)
	m := demo.Popularity(s)
	if model == "knn" {
		m = demo.ItemKNN(s, 50, 100)
	}
	ids, ranked, targets := demo.Rankings(s, m, k)
	var p, g strings.Builder
	p.WriteString("sample_id,item,score\n")
	g.WriteString("sample_id,item\n")
	for u, id := range ids {
		for i, item := range ranked[u] {
			fmt.Fprintf(&p, "%s,%d,%g\n", id, item, 1/float64(i+2))
		}
		for _, item := range targets[u] {
			fmt.Fprintf(&g, "%s,%d\n", id, item)
		}
	}
	dir := t.TempDir()
	pred, targ := filepath.Join(dir, model+".csv"), filepath.Join(dir, "targets.csv")
	require.NoError(t, os.WriteFile(pred, []byte(p.String()), 0o644))
	require.NoError(t, os.WriteFile(targ, []byte(g.String()), 0o644))
	return []string{"--predictions", pred, "--targets", targ}
}

package report_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/report"
)

func TestTableAlignsColumns(t *testing.T) {
	t.Parallel()
	tbl := report.Table{Header: []string{"RUN", "EVALUATIONS", "NOTE"}, Right: map[int]bool{1: true}}
	tbl.Add("pop", "2", "baseline")
	tbl.Add("item-knn", "12", "")
	var b strings.Builder
	require.NoError(t, tbl.Render(&b))
	require.Equal(t, ""+
		"RUN       EVALUATIONS  NOTE\n"+
		"pop                 2  baseline\n"+
		"item-knn           12\n", b.String())
}

func TestTableMarkdownAndCSV(t *testing.T) {
	t.Parallel()
	tbl := report.Table{Header: []string{"RUN", "MEAN"}, Right: map[int]bool{1: true}}
	tbl.Add("a|b", "0.5")
	var md, cs strings.Builder
	require.NoError(t, tbl.Write(&md, "markdown"))
	require.Equal(t, "| RUN | MEAN |\n|---|---:|\n| a\\|b | 0.5 |\n", md.String())
	require.NoError(t, tbl.Write(&cs, "csv"))
	require.Equal(t, "RUN,MEAN\na|b,0.5\n", cs.String())
}

func TestTableFitsMaxWidth(t *testing.T) {
	t.Parallel()
	tbl := report.Table{Header: []string{"RUN", "N"}, Right: map[int]bool{1: true}, MaxWidth: 16}
	tbl.Add("a-very-long-run-name", "12")
	var b strings.Builder
	require.NoError(t, tbl.Render(&b))
	require.Equal(t, "RUN            N\na-very-long…  12\n", b.String())
}

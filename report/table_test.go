package report_test

import (
	"os"
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

func TestTableColorsMarkedCellsOnly(t *testing.T) {
	t.Parallel()
	tbl := report.Table{Header: []string{"RUN", "DIFF"}, Right: map[int]bool{1: true}, Color: true}
	tbl.Add("knn", "+0.02")
	tbl.Mark(1, report.Good)
	tbl.Add("pop", "-0.1")
	var b strings.Builder
	require.NoError(t, tbl.Render(&b))
	// Padding stays outside the escape codes, so columns still align.
	require.Equal(t, ""+
		"\x1b[1mRUN\x1b[0m   \x1b[1mDIFF\x1b[0m\n"+
		"knn  \x1b[32m+0.02\x1b[0m\n"+
		"pop   -0.1\n", b.String())
}

func TestColorForHonoursNoColor(t *testing.T) {
	// Not a terminal: never coloured, whatever NO_COLOR says.
	var b strings.Builder
	require.False(t, report.ColorFor(&b))
	t.Setenv("NO_COLOR", "1")
	require.False(t, report.ColorFor(os.Stdout))
	tbl := report.Table{Header: []string{"A"}}
	tbl.Add("x")
	tbl.Mark(0, report.Bad)
	require.NoError(t, tbl.Write(&b, "table"))
	require.Equal(t, "A\nx\n", b.String())
}

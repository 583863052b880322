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

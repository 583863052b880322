package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
)

// historyFDRJSON is `history --fdr --format json`: where the experiment's
// stream stands, and the comparisons.
type historyFDRJSON struct {
	Ledger      *compare.LedgerSummary `json:"ledger"`
	Comparisons []store.HistoryEntry   `json:"comparisons"`
}

// HistoryFDR lists recorded comparisons with their tests in the
// experiment's online FDR stream (the level each p-value was held to, and
// whether the procedure rejected), and says where the stream stands.
func HistoryFDR(w io.Writer, format string, l *compare.LedgerSummary, hist []store.HistoryEntry) error {
	switch format {
	case "json":
		if hist == nil {
			hist = []store.HistoryEntry{}
		}
		return WriteJSON(w, historyFDRJSON{Ledger: l, Comparisons: hist})
	}
	t := &Table{Header: []string{"ID", "WHEN", "METRIC", "BASELINE", "CANDIDATE", "P", "TEST", "LEVEL", "REJECTED", "WEALTH AFTER", "WINNER"},
		Right: map[int]bool{0: true, 5: true, 6: true, 7: true, 9: true}}
	for _, h := range hist {
		p := "-"
		if h.PValue != nil {
			p = PValue(*h.PValue, 0)
		}
		test, level, rejected, wealth := "-", "fixed alpha", "-", "-"
		if h.FDRTest != nil {
			test, level = strconv.FormatInt(*h.FDRTest, 10), Num(*h.FDRLevel)
			rejected = strconv.FormatBool(*h.FDRRejected)
			if h.FDRWealthAfter != nil {
				wealth = Num(*h.FDRWealthAfter)
			}
		}
		winner := h.Winner
		if winner == "" {
			winner = "none"
		}
		t.Add(strconv.FormatInt(h.ID, 10), h.CreatedAt.Local().Format("2006-01-02 15:04"), Printable(h.Metric),
			Printable(h.BaselineRun), Printable(h.CandidateRun), p, test, level, rejected, wealth, winner)
		if h.FDRRejected != nil && *h.FDRRejected {
			t.Mark(8, Strong)
		}
	}
	if format == "table" {
		if _, err := fmt.Fprintf(w, "experiment %s: %s at FDR %g; %s, %s rejected; alpha-wealth now %s, next level %s\n\n",
			Printable(l.Experiment), l.Method, l.Alpha, plural(l.Tests, "test"), Thousands(int64(l.Rejections)), Num(l.Wealth), Num(l.NextLevel)); err != nil {
			return err
		}
	}
	if err := t.Write(w, format); err != nil {
		return err
	}
	if format == "table" {
		_, err := fmt.Fprintf(w, "\nThe procedure keeps the expected share of false discoveries among the rejections of this history at or below %g, at any point in it, for the comparisons recorded under it (not those at a fixed alpha). It does not make any single rejection certain.\n", l.Alpha)
		return err
	}
	return nil
}

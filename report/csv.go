package report

import (
	"math"
	"strconv"
	"time"
)

// The cells of --format csv tables: one value a cell, numbers at full
// precision, no units or brackets, and an empty cell for none, so that a
// spreadsheet or a script reads them as they are. The text tables, with
// Num and Interval, are for people.

// CSVNum is x in the shortest form that reads back exactly ("0.1",
// "1e-07"), or an empty cell for NaN and ±Inf.
func CSVNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// CSVPtr is CSVNum of *p, or an empty cell for nil.
func CSVPtr(p *float64) string {
	if p == nil {
		return ""
	}
	return CSVNum(*p)
}

// CSVTime is t in UTC as RFC 3339 with as many fractional seconds as it
// has: "2024-03-01T14:30:00.25Z".
func CSVTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// CSVInterval is the three cells of an interval: CSVNum of its estimate,
// low and high bounds. A missing interval is three NaNs, and so three
// empty cells.
func CSVInterval(est, low, high float64) []string {
	return []string{CSVNum(est), CSVNum(low), CSVNum(high)}
}

package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Table is a plain text table: a header row and data rows, columns separated
// by two spaces. Columns listed in Right are right-aligned (numbers).
type Table struct {
	Header []string
	Rows   [][]string
	Right  map[int]bool
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Render writes the table to w. An empty table prints its header only.
func (t *Table) Render(w io.Writer) error {
	widths := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		cells := make([]string, len(widths))
		for i := range widths {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			if t.Right[i] {
				c = strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)) + c
			}
			cells[i] = c
		}
		if _, err := fmt.Fprintln(tw, strings.TrimRight(strings.Join(cells, "\t"), " \t")); err != nil {
			return err
		}
	}
	return tw.Flush()
}

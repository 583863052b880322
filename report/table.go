package report

import (
	"encoding/csv"
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

// Markdown writes the table as a GitHub-flavoured Markdown table, with
// right-aligned columns marked so and pipes in cells escaped.
func (t *Table) Markdown(w io.Writer) error {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("|")
	for _, h := range t.Header {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|")
	for i := range t.Header {
		if t.Right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		b.WriteString("|")
		for i := range t.Header {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes the header and rows as CSV.
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// Write renders the table in format: table, markdown or csv.
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case "markdown":
		return t.Markdown(w)
	case "csv":
		return t.CSV(w)
	}
	return t.Render(w)
}

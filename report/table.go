package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"golang.org/x/term"
)

// Table is a plain text table: a header row and data rows, columns separated
// by two spaces. Columns listed in Right are right-aligned (numbers).
type Table struct {
	Header []string
	Rows   [][]string
	Right  map[int]bool
	// MaxWidth, when positive, is the width Render must fit in (a
	// terminal's): the widest left-aligned column is cut, with "…", until
	// the table fits or every such column is down to 8 characters.
	MaxWidth int
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
	t.fit(widths)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		cells := make([]string, len(widths))
		for i := range widths {
			c := ""
			if i < len(row) {
				c = cut(row[i], widths[i])
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

// Write renders the table in format: table, markdown or csv. A table
// written to a terminal fits its width unless MaxWidth says otherwise.
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case "markdown":
		return t.Markdown(w)
	case "csv":
		return t.CSV(w)
	}
	if t.MaxWidth == 0 {
		t.MaxWidth = TerminalWidth(w)
	}
	return t.Render(w)
}

// TerminalWidth is the width of the terminal w writes to, or 0 when w is
// not a terminal.
func TerminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

// fit narrows left-aligned columns, widest first, until the table fits in
// MaxWidth.
func (t *Table) fit(widths []int) {
	if t.MaxWidth <= 0 {
		return
	}
	total := func() int {
		n := 2 * (len(widths) - 1)
		for _, w := range widths {
			n += w
		}
		return n
	}
	for total() > t.MaxWidth {
		widest := -1
		for i, w := range widths {
			if !t.Right[i] && w > 8 && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		widths[widest] = max(8, widths[widest]-(total()-t.MaxWidth))
	}
}

// cut shortens s to n runes, ending in "…" when it had to cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

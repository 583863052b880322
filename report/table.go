package report

import (
	"encoding/csv"
	"io"
	"os"
	"strings"
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
	// Wrap lists columns of long text that may wrap in HTML.
	Wrap map[int]bool
	// Color turns on the cells' styles (ANSI colours) in Render. Write sets
	// it for a terminal unless NO_COLOR is set.
	Color  bool
	styles map[[2]int]Style
	hrefs  map[[2]int]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Mark styles cell col of the last row added.
func (t *Table) Mark(col int, s Style) {
	if t.styles == nil {
		t.styles = map[[2]int]Style{}
	}
	t.styles[[2]int{len(t.Rows) - 1, col}] = s
}

// Link makes cell col of the last row added a link to href. Only HTML
// shows links: text, Markdown and CSV show the cell's text alone, so that
// a table reads the same wherever it is written.
func (t *Table) Link(col int, href string) { t.setLink(len(t.Rows)-1, col, href) }

// setLink makes cell (row, col) a link to href; "" makes none.
func (t *Table) setLink(row, col int, href string) {
	if href == "" {
		return
	}
	if t.hrefs == nil {
		t.hrefs = map[[2]int]string{}
	}
	t.hrefs[[2]int{row, col}] = href
}

// Href is the link of a cell, "" when it has none.
func (t *Table) Href(row, col int) string { return t.hrefs[[2]int{row, col}] }

// Render writes the table to w. An empty table prints its header only.
func (t *Table) Render(w io.Writer) error {
	widths := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(Printable(c)))
			}
		}
	}
	t.fit(widths)
	var b strings.Builder
	line := func(r int, row []string, header bool) {
		var l strings.Builder
		pending := 0 // spaces owed before the next non-empty cell
		for i := range widths {
			c := ""
			if i < len(row) {
				c = cut(Printable(row[i]), widths[i])
			}
			pad := widths[i] - utf8.RuneCountInString(c)
			if t.Right[i] {
				pending += pad
			}
			if c != "" {
				l.WriteString(strings.Repeat(" ", pending))
				pending = 0
				switch {
				case header:
					l.WriteString(Paint(t.Color, Strong, c))
				default:
					l.WriteString(Paint(t.Color, t.styles[[2]int{r, i}], c))
				}
			}
			if !t.Right[i] {
				pending += pad
			}
			pending += 2
		}
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	line(-1, t.Header, true)
	for r, row := range t.Rows {
		line(r, row, false)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes the table as a GitHub-flavoured Markdown table, with
// right-aligned columns marked so and pipes in cells escaped.
func (t *Table) Markdown(w io.Writer) error {
	esc := func(s string) string { return strings.ReplaceAll(Printable(s), "|", `\|`) }
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
	if !t.Color {
		t.Color = ColorFor(w)
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

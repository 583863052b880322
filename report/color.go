package report

import (
	"io"
	"os"
)

// Style is how text is coloured on a terminal.
type Style uint8

// The styles. Good and Bad mark differences that are distinguishable in the
// reader's favour or against it; Dim marks what is not distinguishable.
const (
	Plain Style = iota
	Strong
	Good
	Bad
	Dim
)

var sgr = map[Style]string{
	Strong: "\x1b[1m",
	Good:   "\x1b[32m",
	Bad:    "\x1b[31m",
	Dim:    "\x1b[2m",
}

// Paint wraps text in the ANSI codes of s when on is true.
func Paint(on bool, s Style, text string) string {
	code, ok := sgr[s]
	if !on || !ok || text == "" {
		return text
	}
	return code + text + "\x1b[0m"
}

// ColorFor reports whether output to w may be coloured: w is a terminal, the
// NO_COLOR environment variable is unset or empty (https://no-color.org), and
// TERM is not "dumb".
func ColorFor(w io.Writer) bool {
	return colorAllowed() && TerminalWidth(w) > 0
}

// colorAllowed is the environment's say: no with NO_COLOR set to anything
// but the empty string, or with TERM=dumb.
func colorAllowed() bool {
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

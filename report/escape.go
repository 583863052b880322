package report

import (
	"fmt"
	"strings"
	"unicode"
)

// Printable returns s with every control character (C0, DEL, C1: a
// terminal escape sequence, a carriage return that would overwrite the
// line, a bell) written as a visible escape, \x1b or \u0085, so that a
// name can never drive the reader's terminal. Text without control
// characters comes back unchanged. Tables and sentences pass every name
// they print through it; CSV and JSON keep names as they are, escaped by
// their own syntax.
func Printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unicode.IsControl(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// ShellWord is s as one word of a POSIX shell command line: as it is when
// it holds only characters no shell interprets, else in single quotes,
// each single quote written '\”. It is also Printable.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(Printable(s), "'", `'\''`) + "'"
}

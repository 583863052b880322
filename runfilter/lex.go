package runfilter

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// tokKind is what a token is.
type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokString
	tokNumber
	tokOp
	tokLParen
	tokRParen
	tokComma
	tokAge // a number and a unit, such as -7d
)

// A token is one word, string, number, operator or parenthesis of an
// expression; col is the column (1-based) where it starts.
type token struct {
	kind tokKind
	text string
	col  int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokString:
		return fmt.Sprintf("string '%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// isNameRune reports what may appear in a bare name such as ndcg@20.
func isNameRune(r rune) bool {
	return r == '_' || r == '@' || r == '-' || r == ':' || r == '/' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// next reads the next token into p.tok (or records a lexical error in p.err).
func (p *parser) next() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
	start := p.pos
	col := len([]rune(p.src[:start])) + 1
	if p.pos >= len(p.src) {
		p.tok = token{kind: tokEOF, col: col}
		return
	}
	c := p.src[p.pos]
	switch {
	case c == '(':
		p.pos++
		p.tok = token{tokLParen, "(", col}
	case c == ')':
		p.pos++
		p.tok = token{tokRParen, ")", col}
	case c == ',':
		p.pos++
		p.tok = token{tokComma, ",", col}
	case c == '.':
		p.pos++
		p.tok = token{tokOp, ".", col}
	case strings.ContainsRune("=!<>", rune(c)):
		end := p.pos + 1
		if end < len(p.src) && p.src[end] == '=' || (c == '<' && end < len(p.src) && p.src[end] == '>') {
			end++
		}
		p.tok = token{tokOp, p.src[p.pos:end], col}
		p.pos = end
	case c == '\'':
		var b strings.Builder
		i := p.pos + 1
		for {
			if i >= len(p.src) {
				p.tok = token{tokEOF, "", col}
				p.err = fmt.Errorf("%w: column %d: unterminated string", p.bad, col)
				p.pos = len(p.src)
				return
			}
			if p.src[i] == '\'' {
				if i+1 < len(p.src) && p.src[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				break
			}
			b.WriteByte(p.src[i])
			i++
		}
		p.pos = i + 1
		p.tok = token{tokString, b.String(), col}
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		end := p.pos + 1
		for end < len(p.src) && strings.ContainsRune("0123456789.eE+-", rune(p.src[end])) {
			end++
		}
		// A number with letters after it is an age (-7d), or a mistake.
		suffix := end
		for suffix < len(p.src) && ('a' <= p.src[suffix] && p.src[suffix] <= 'z' || 'A' <= p.src[suffix] && p.src[suffix] <= 'Z') {
			suffix++
		}
		if suffix > end {
			text := p.src[p.pos:suffix]
			if _, ok := parseAge(text); !ok {
				p.tok = token{tokEOF, "", col}
				p.err = fmt.Errorf("%w: column %d: %q is not a number, nor an age such as -7d, -12h or -30m", p.bad, col, text)
				p.pos = len(p.src)
				return
			}
			p.tok = token{tokAge, text, col}
			p.pos = suffix
			return
		}
		text := p.src[p.pos:end]
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			p.tok = token{tokEOF, "", col}
			p.err = fmt.Errorf("%w: column %d: %q is not a number", p.bad, col, text)
			p.pos = len(p.src)
			return
		}
		p.tok = token{tokNumber, text, col}
		p.pos = end
	default:
		end := p.pos
		for end < len(p.src) {
			r := []rune(p.src[end:])[0]
			if !isNameRune(r) {
				break
			}
			end += len(string(r))
		}
		if end == p.pos {
			r := []rune(p.src[p.pos:])[0]
			p.tok = token{tokEOF, "", col}
			p.err = fmt.Errorf("%w: column %d: unexpected character %q", p.bad, col, r)
			p.pos = len(p.src)
			return
		}
		p.tok = token{tokWord, p.src[p.pos:end], col}
		p.pos = end
	}
}

// parseAge reads an age: an optional minus, a whole number and a unit, d, h
// or m. Both -7d and 7d are 7 days before now.
func parseAge(s string) (time.Duration, bool) {
	num := strings.TrimPrefix(s, "-")
	if len(num) < 2 {
		return 0, false
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[num[len(num)-1]]
	n, err := strconv.ParseUint(num[:len(num)-1], 10, 63)
	if unit == 0 || err != nil || n > uint64(math.MaxInt64/unit) {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

package input

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// parsePyDict parses the Python dict literal of a .npy header. Values are
// strings, booleans, tuples of integers (as []int64), or a list, which
// stands for a structured dtype and is returned as a []any placeholder.
func parsePyDict(s string) (map[string]any, error) {
	p := pyParser{s: s}
	p.space()
	if !p.eat('{') {
		return nil, errors.New("expected '{'")
	}
	dict := map[string]any{}
	for {
		p.space()
		if p.eat('}') {
			return dict, nil
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if !p.eat(':') {
			return nil, errors.New("expected ':'")
		}
		p.space()
		var v any
		switch {
		case p.peek() == '\'' || p.peek() == '"':
			v, err = p.str()
		case strings.HasPrefix(p.s[p.i:], "True"):
			v, p.i = true, p.i+4
		case strings.HasPrefix(p.s[p.i:], "False"):
			v, p.i = false, p.i+5
		case p.peek() == '(':
			v, err = p.tuple()
		case p.peek() == '[':
			v, err = []any{}, p.skipList()
		default:
			err = fmt.Errorf("unexpected %q", p.s[p.i:min(p.i+10, len(p.s))])
		}
		if err != nil {
			return nil, err
		}
		dict[key] = v
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return nil, errors.New("expected ',' or '}'")
			}
			return dict, nil
		}
	}
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// str parses a quoted string without escapes, which is all a .npy header
// holds.
func (p *pyParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", errors.New("expected a quoted string")
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	s := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return s, nil
}

// tuple parses a tuple of integers such as (), (3,) or (3, 2). Python 2
// wrote long integers with an L suffix, as in (3L,).
func (p *pyParser) tuple() ([]int64, error) {
	p.i++ // '('
	dims := []int64{}
	for {
		p.space()
		if p.eat(')') {
			return dims, nil
		}
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
		if err != nil {
			return nil, errors.New("expected a dimension")
		}
		dims = append(dims, n)
		p.eat('L')
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, errors.New("expected ',' or ')'")
			}
			return dims, nil
		}
	}
}

// skipList skips a list literal, brackets nested or not.
func (p *pyParser) skipList() error {
	depth := 0
	for ; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		}
	}
	return errors.New("unterminated list")
}

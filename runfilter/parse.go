package runfilter

import (
	"fmt"
	"strings"
	"time"
)

// Parse parses a run search expression; see the package comment. An empty
// expression matches every run. Its errors wrap ErrBadFilter.
func Parse(expr string) (*Filter, error) {
	p := &parser{src: expr, bad: ErrBadFilter}
	p.next()
	if p.err != nil {
		return nil, p.err // the first token's: an unterminated string, a bad character
	}
	if p.tok.kind == tokEOF {
		return &Filter{}, nil
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.err != nil {
		return nil, p.err
	}
	if p.tok.kind != tokEOF {
		return nil, p.errorf("unexpected %s after a complete expression", p.tok)
	}
	return &Filter{root: n}, nil
}

// ParseOrder parses an order key: an operand, then optionally asc or
// desc (default asc). Its errors wrap ErrBadOrder.
func ParseOrder(expr string) (Order, error) {
	p := &parser{src: expr, bad: ErrBadOrder}
	p.next()
	key, err := p.operand()
	if err != nil {
		return Order{}, err
	}
	desc := false
	if p.tok.kind == tokWord {
		switch strings.ToUpper(p.tok.text) {
		case "ASC":
			p.next()
		case "DESC":
			desc = true
			p.next()
		}
	}
	if p.err != nil {
		return Order{}, p.err
	}
	if p.tok.kind != tokEOF {
		return Order{}, p.errorf("unexpected %s: want asc or desc", p.tok)
	}
	return Order{Key: key, Desc: desc}, nil
}

// A parser reads an expression: the lexer's state (src, pos, tok, and
// err, a lexical error), then the rules of the grammar, one method each.
type parser struct {
	src string
	pos int
	tok token
	err error
	bad error // the sentinel errors wrap: ErrBadFilter or ErrBadOrder
}

func (p *parser) errorf(format string, args ...any) error {
	return p.errorAt(p.tok.col, format, args...)
}

// errorAt reports a problem at a column of the expression.
func (p *parser) errorAt(col int, format string, args ...any) error {
	return fmt.Errorf("%w: column %d: %s", p.bad, col, fmt.Sprintf(format, args...))
}

func (p *parser) or() (node, error) {
	left, err := p.and()
	for err == nil && p.isKeyword("OR") {
		p.next()
		var right node
		if right, err = p.and(); err == nil {
			left = &boolNode{op: "OR", left: left, right: right}
		}
	}
	return left, err
}

func (p *parser) and() (node, error) {
	left, err := p.not()
	for err == nil && p.isKeyword("AND") {
		p.next()
		var right node
		if right, err = p.not(); err == nil {
			left = &boolNode{op: "AND", left: left, right: right}
		}
	}
	return left, err
}

func (p *parser) not() (node, error) {
	if p.isKeyword("NOT") {
		p.next()
		inner, err := p.not()
		if err != nil {
			return nil, err
		}
		return &notNode{inner: inner}, nil
	}
	return p.comparison()
}

func (p *parser) isKeyword(k string) bool {
	return p.tok.kind == tokWord && strings.EqualFold(p.tok.text, k)
}

func (p *parser) comparison() (node, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.tok.kind == tokLParen {
		p.next()
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, p.errorf("expected ) but found %s", p.tok)
		}
		p.next()
		return n, nil
	}
	o, err := p.operand()
	if err != nil {
		return nil, err
	}
	op := ""
	switch {
	case p.tok.kind == tokOp && p.tok.text != ".":
		op = p.tok.text
		if op == "<>" {
			op = "!="
		}
		if !strings.Contains("= != < <= > >=", op) || op == "!" {
			return nil, p.errorf("unknown operator %s", p.tok)
		}
	case p.isKeyword("LIKE"), p.isKeyword("ILIKE"), p.isKeyword("IN"):
		op = strings.ToUpper(p.tok.text)
	default:
		return nil, p.errorf("expected an operator (= != < <= > >= LIKE ILIKE IN) but found %s", p.tok)
	}
	p.next()
	n := &cmpNode{operand: o, op: op}
	if op == "IN" {
		if p.tok.kind != tokLParen {
			return nil, p.errorf("expected ( after IN but found %s", p.tok)
		}
		p.next()
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.values = append(n.values, v)
			if p.tok.kind == tokComma {
				p.next()
				continue
			}
			if p.tok.kind != tokRParen {
				return nil, p.errorf("expected , or ) but found %s", p.tok)
			}
			p.next()
			break
		}
		if o.Kind != Created {
			for _, v := range n.values {
				if v.number != n.values[0].number {
					return nil, p.errorf("IN mixes numbers and strings")
				}
			}
		}
		return n, p.checkValues(n)
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if (op == "LIKE" || op == "ILIKE") && (v.number || v.time) {
		return nil, p.errorAt(v.col, "%s needs a string pattern", op)
	}
	n.values = []value{v}
	return n, p.checkValues(n)
}

// checkValues turns the values a comparison with created compares with into
// times, and refuses ages elsewhere.
func (p *parser) checkValues(n *cmpNode) error {
	for i, v := range n.values {
		switch {
		case n.operand.Kind == Created && n.op != "LIKE" && n.op != "ILIKE":
			t, err := p.timeValue(v)
			if err != nil {
				return err
			}
			n.values[i] = t
		case v.time:
			return p.errorAt(v.col, "an age such as %s compares with created only", v.text)
		}
	}
	return nil
}

func (p *parser) operand() (Operand, error) {
	if p.err != nil {
		return Operand{}, p.err
	}
	if p.tok.kind != tokWord {
		return Operand{}, p.errorf("expected run, created, git_commit, params.NAME, tags.NAME or metrics.NAME but found %s", p.tok)
	}
	word := strings.ToLower(p.tok.text)
	switch word {
	case "run", "created", "git_commit":
		p.next()
		return Operand{Kind: Kind(word)}, nil
	case "params", "tags", "metrics":
		p.next()
		if p.tok.kind != tokOp || p.tok.text != "." {
			return Operand{}, p.errorf("expected . after %s but found %s", word, p.tok)
		}
		p.next()
		if p.err != nil {
			return Operand{}, p.err
		}
		if p.tok.kind != tokWord && p.tok.kind != tokString && p.tok.kind != tokNumber && p.tok.kind != tokAge {
			return Operand{}, p.errorf("expected a name after %s. but found %s", word, p.tok)
		}
		name := p.tok.text
		p.next()
		return Operand{Kind: Kind(word), Name: name}, nil
	}
	return Operand{}, p.errorf("unknown name %q: want run, created, git_commit, params.NAME, tags.NAME or metrics.NAME", p.tok.text)
}

func (p *parser) value() (value, error) {
	if p.err != nil {
		return value{}, p.err
	}
	v := value{text: p.tok.text, col: p.tok.col}
	switch p.tok.kind {
	case tokString:
	case tokNumber:
		v.number = true
	case tokAge:
		v.time = true
		v.ago, _ = parseAge(v.text)
	default:
		return value{}, p.errorf("expected a value (a 'string' or a number) but found %s", p.tok)
	}
	p.next()
	return v, p.err
}

// timeValue turns a value compared with created into a time, or says
// what is wrong with it.
func (p *parser) timeValue(v value) (value, error) {
	if v.time {
		return v, nil
	}
	if !v.number {
		if ago, ok := parseAge(v.text); ok {
			v.time, v.ago = true, ago
			return v, nil
		}
		// Without a zone, local time, as the history's since reads dates.
		for _, layout := range []string{"2006-01-02", "2006-01-02T15:04:05", "2006-01-02 15:04:05", time.RFC3339} {
			if at, err := time.ParseInLocation(layout, v.text, time.Local); err == nil {
				v.time, v.at = true, at
				return v, nil
			}
		}
	}
	what := fmt.Sprintf("'%s'", v.text)
	if v.number {
		what = v.text
	}
	return v, p.errorAt(v.col, "created compares with a date ('2026-11-01', '2026-11-01T09:30:00Z') or an age (-7d, -12h, -30m), not %s", what)
}

package store

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ErrBadFilter is wrapped by the errors of ParseRunFilter; the message gives
// the column (1-based) where the expression went wrong.
var ErrBadFilter = errors.New("bad filter")

// ErrBadOrder is wrapped by the errors of ParseRunOrder; the message gives
// the column (1-based) where the key went wrong. errors.Is also matches it
// with ErrBadFilter: an order is the same language as a filter, and a
// caller that handles one handles both.
var ErrBadOrder error = badOrder{}

type badOrder struct{}

func (badOrder) Error() string        { return "bad order-by" }
func (badOrder) Is(target error) bool { return target == ErrBadFilter }

// A RunFilter is a parsed run search expression, such as
//
//	params.lr < 0.01 AND (tags.nightly = 'true' OR run LIKE 'als-%') AND metrics.ndcg@20 >= 0.3
//
// Operands are the attributes run, created and git_commit, and params.NAME
// (a run parameter), tags.NAME (the value of the run's tag NAME: 'true'
// for a tag logged without a value, 'false' when the run has no tag NAME;
// compared with a number, the value if it is a number, else NULL) and
// metrics.NAME (the mean of NAME in the run's newest evaluation, on the
// evaluation set the query names, or any). Operators are = != < <= >
// >= LIKE ILIKE and IN (...), combined with AND, OR, NOT and parentheses;
// values are single-quoted strings (” for a quote) and numbers. Keywords are
// case-insensitive. The expression compiles to parameterised SQL: no text of
// the user's ever becomes SQL text.
//
// created, the time the run was first logged, compares with times: a date
// ('2026-11-01', midnight in the local time zone), a date and time
// ('2026-11-01T09:30:00', local; '2026-11-01T09:30:00Z' or any RFC 3339
// time) or an age, a whole number of days, hours or minutes before now
// (-7d, -12h, -30m; quoted or not, with or without the minus), so that
// created > -7d selects the runs of the last week. Any other value is an
// error that gives its column. With LIKE and ILIKE, created is text in UTC,
// 2026-11-01T09:30:00.
type RunFilter struct {
	root node
}

type node interface {
	sql(b *sqlBuilder) string
}

type boolNode struct {
	op          string // AND, OR
	left, right node
}

type notNode struct{ inner node }

type cmpNode struct {
	operand operand
	op      string
	values  []value // one, or several for IN
}

type operand struct {
	kind string // run, created, git_commit, params, tags, metrics
	name string // for params, tags, metrics
}

type value struct {
	text   string
	number bool
	col    int // where the value starts, for messages

	// A value compared with created is a time: at, or ago before now.
	time bool
	at   time.Time
	ago  time.Duration
}

// sqlBuilder collects the parameters of the compiled SQL.
type sqlBuilder struct {
	args    []any
	evalSet int // parameter number of the evaluation set name
}

func (b *sqlBuilder) param(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

func (n *boolNode) sql(b *sqlBuilder) string {
	return "(" + n.left.sql(b) + " " + n.op + " " + n.right.sql(b) + ")"
}

func (n *notNode) sql(b *sqlBuilder) string { return "(NOT " + n.inner.sql(b) + ")" }

func (n *cmpNode) sql(b *sqlBuilder) string {
	numeric := len(n.values) > 0 && n.values[0].number
	lhs := n.operand.sql(b, numeric)
	if n.operand.kind == "created" && (n.op == "LIKE" || n.op == "ILIKE") {
		lhs = createdText
	}
	if n.op == "IN" {
		var ps []string
		for _, v := range n.values {
			ps = append(ps, v.param(b))
		}
		return "(" + lhs + " IN (" + strings.Join(ps, ", ") + "))"
	}
	return "(" + lhs + " " + n.op + " " + n.values[0].param(b) + ")"
}

func (v value) param(b *sqlBuilder) string {
	switch {
	case v.time && v.ago != 0:
		return "(now() - " + b.param(v.ago.Seconds()) + "::double precision * interval '1 second')"
	case v.time && v.ago == 0 && v.at.IsZero():
		return "now()"
	case v.time:
		return b.param(v.at) + "::timestamptz"
	}
	if v.number {
		f, _ := strconv.ParseFloat(v.text, 64)
		return b.param(f) + "::double precision"
	}
	return b.param(v.text) + "::text"
}

// sql is the operand's SQL expression; numeric compares as a number.
func (o operand) sql(b *sqlBuilder, numeric bool) string {
	switch o.kind {
	case "run":
		return "r.name"
	case "git_commit":
		return "coalesce(r.git_commit, '')"
	case "created":
		return "r.created_at"
	case "params":
		k := b.param(o.name)
		if numeric {
			return fmt.Sprintf("(CASE WHEN jsonb_typeof(r.params -> %s::text) = 'number' THEN (r.params ->> %s::text)::double precision END)", k, k)
		}
		return fmt.Sprintf("(r.params ->> %s::text)", k)
	case "tags":
		k := b.param(o.name)
		if numeric {
			return fmt.Sprintf(`(CASE WHEN (r.tag_values ->> %s::text) ~ '^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$'
				THEN (r.tag_values ->> %s::text)::double precision END)`, k, k)
		}
		return fmt.Sprintf("coalesce(r.tag_values ->> %s::text, 'false')", k)
	case "metrics":
		k := b.param(o.name)
		expr := fmt.Sprintf(`(SELECT (e.aggregates ->> %s::text)::double precision
			FROM evaluations e JOIN evaluation_sets s ON s.id = e.evaluation_set_id
			WHERE e.run_id = r.id AND ($%d::text = '' OR s.name = $%d::text) AND e.aggregates ? %s::text
			ORDER BY e.created_at DESC, e.id DESC LIMIT 1)`, k, b.evalSet, b.evalSet, k)
		if numeric {
			return expr
		}
		return "(" + expr + ")::text"
	}
	panic("store: unknown operand " + o.kind)
}

// createdText is created as text, for LIKE and ILIKE.
const createdText = `to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')`

// ParseRunFilter parses a run search expression; see RunFilter. An empty
// expression matches every run.
func ParseRunFilter(expr string) (*RunFilter, error) {
	p := &filterParser{src: expr, bad: ErrBadFilter}
	p.next()
	if p.err != nil {
		return nil, p.err // the first token's: an unterminated string, a bad character
	}
	if p.tok.kind == tokEOF {
		return &RunFilter{}, nil
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
	return &RunFilter{root: n}, nil
}

// ParseRunOrder parses an order key: an operand, then optionally asc or
// desc (default asc). Its errors wrap ErrBadOrder.
func ParseRunOrder(expr string) (key operand, desc bool, err error) {
	p := &filterParser{src: expr, bad: ErrBadOrder}
	p.next()
	key, err = p.operand()
	if err != nil {
		return operand{}, false, err
	}
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
		return operand{}, false, p.err
	}
	if p.tok.kind != tokEOF {
		return operand{}, false, p.errorf("unexpected %s: want asc or desc", p.tok)
	}
	return key, desc, nil
}

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

type filterParser struct {
	src string
	pos int
	tok token
	err error
	bad error // the sentinel errors wrap: ErrBadFilter or ErrBadOrder
}

func (p *filterParser) errorf(format string, args ...any) error {
	return p.errorAt(p.tok.col, format, args...)
}

// errorAt reports a problem at a column of the expression.
func (p *filterParser) errorAt(col int, format string, args ...any) error {
	return fmt.Errorf("%w: column %d: %s", p.bad, col, fmt.Sprintf(format, args...))
}

// isNameRune reports what may appear in a bare name such as ndcg@20.
func isNameRune(r rune) bool {
	return r == '_' || r == '@' || r == '-' || r == ':' || r == '/' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// next reads the next token into p.tok (or records a lexical error in p.err).
func (p *filterParser) next() {
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

func (p *filterParser) or() (node, error) {
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

func (p *filterParser) and() (node, error) {
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

func (p *filterParser) not() (node, error) {
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

func (p *filterParser) isKeyword(k string) bool {
	return p.tok.kind == tokWord && strings.EqualFold(p.tok.text, k)
}

func (p *filterParser) comparison() (node, error) {
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
		if o.kind != "created" {
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
func (p *filterParser) checkValues(n *cmpNode) error {
	for i, v := range n.values {
		switch {
		case n.operand.kind == "created" && n.op != "LIKE" && n.op != "ILIKE":
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

func (p *filterParser) operand() (operand, error) {
	if p.err != nil {
		return operand{}, p.err
	}
	if p.tok.kind != tokWord {
		return operand{}, p.errorf("expected run, created, git_commit, params.NAME, tags.NAME or metrics.NAME but found %s", p.tok)
	}
	word := strings.ToLower(p.tok.text)
	switch word {
	case "run", "created", "git_commit":
		p.next()
		return operand{kind: word}, nil
	case "params", "tags", "metrics":
		p.next()
		if p.tok.kind != tokOp || p.tok.text != "." {
			return operand{}, p.errorf("expected . after %s but found %s", word, p.tok)
		}
		p.next()
		if p.err != nil {
			return operand{}, p.err
		}
		if p.tok.kind != tokWord && p.tok.kind != tokString && p.tok.kind != tokNumber && p.tok.kind != tokAge {
			return operand{}, p.errorf("expected a name after %s. but found %s", word, p.tok)
		}
		name := p.tok.text
		p.next()
		return operand{kind: word, name: name}, nil
	}
	return operand{}, p.errorf("unknown name %q: want run, created, git_commit, params.NAME, tags.NAME or metrics.NAME", p.tok.text)
}

func (p *filterParser) value() (value, error) {
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
func (p *filterParser) timeValue(v value) (value, error) {
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

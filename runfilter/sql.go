package runfilter

import (
	"strconv"
	"strings"
)

// Columns is what a filter or an order key is rendered with: the query's
// placeholders and the SQL of each operand. Package store supplies it.
type Columns interface {
	// Param adds v to the query's arguments and returns its placeholder,
	// such as $3.
	Param(v any) string
	// Column returns the SQL expression of o read as as. An operand's name
	// must reach the SQL through Param, never as text.
	Column(o Operand, as Type) string
}

// Type is what a comparison reads an operand as.
type Type int

const (
	// Text: compared with strings, or matched by LIKE and ILIKE (created
	// too, as text in UTC, 2026-11-01T09:30:00).
	Text Type = iota
	// Number: compared with numbers, and metrics in an order key.
	Number
	// Time: created, compared with times or in an order key.
	Time
)

// SQL renders the filter as a boolean SQL expression, its values as
// parameters added with c.Param. The empty filter is TRUE.
func (f *Filter) SQL(c Columns) string {
	if f.root == nil {
		return "TRUE"
	}
	return f.root.sql(c)
}

// SQL renders the order as an SQL sort key with its direction: NULLs, the
// runs without the key, come last either way.
func (o Order) SQL(c Columns) string {
	as := Text
	switch o.Key.Kind {
	case Metrics:
		as = Number
	case Created:
		as = Time
	}
	dir := "ASC NULLS LAST"
	if o.Desc {
		dir = "DESC NULLS LAST"
	}
	return c.Column(o.Key, as) + " " + dir
}

func (n *boolNode) sql(c Columns) string {
	return "(" + n.left.sql(c) + " " + n.op + " " + n.right.sql(c) + ")"
}

func (n *notNode) sql(c Columns) string { return "(NOT " + n.inner.sql(c) + ")" }

func (n *cmpNode) sql(c Columns) string {
	as := Text
	switch {
	case n.operand.Kind == Created && n.op != "LIKE" && n.op != "ILIKE":
		as = Time // checkValues made every value a time
	case len(n.values) > 0 && n.values[0].number:
		as = Number
	}
	lhs := c.Column(n.operand, as)
	if n.op == "IN" {
		var ps []string
		for _, v := range n.values {
			ps = append(ps, v.param(c))
		}
		return "(" + lhs + " IN (" + strings.Join(ps, ", ") + "))"
	}
	return "(" + lhs + " " + n.op + " " + n.values[0].param(c) + ")"
}

func (v value) param(c Columns) string {
	switch {
	case v.time && v.ago != 0:
		return "(now() - " + c.Param(v.ago.Seconds()) + "::double precision * interval '1 second')"
	case v.time && v.ago == 0 && v.at.IsZero():
		return "now()"
	case v.time:
		return c.Param(v.at) + "::timestamptz"
	}
	if v.number {
		f, _ := strconv.ParseFloat(v.text, 64)
		return c.Param(f) + "::double precision"
	}
	return c.Param(v.text) + "::text"
}

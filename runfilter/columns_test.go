package runfilter_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/runfilter"
)

// testColumns renders an operand as its kind, its name as a parameter
// in brackets, and its type after a colon when not text: params[$1]:number.
// Package store's columns are SQL; these show what the language renders
// around them.
type testColumns struct{ args []any }

func (c *testColumns) Param(v any) string {
	c.args = append(c.args, v)
	return fmt.Sprintf("$%d", len(c.args))
}

func (c *testColumns) Column(o runfilter.Operand, as runfilter.Type) string {
	col := string(o.Kind)
	if o.Name != "" {
		col += "[" + c.Param(o.Name) + "]"
	}
	switch as {
	case runfilter.Number:
		col += ":number"
	case runfilter.Time:
		col += ":time"
	}
	return col
}

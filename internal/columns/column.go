package columns

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// idColumns are the CSV columns held as text: the unit IDs of PairUnits
// and the keys of Keyed. Every other column is held as numbers, parsed as
// it is read.
var idColumns = map[string]bool{"id": true, "units": true}

// column is one CSV column: numbers, or text for an ID column.
type column struct {
	text bool // an ID column: cells and ends hold it

	// An ID column's text: cell i is cells[ends[i-1]:ends[i]].
	cells []byte
	ends  []int32
	strs  []string // the cells as strings, made once

	// A column of numbers: vals holds each row's value, 0 at the empty
	// cells (white space only), whose rows are in empty, ascending. Once a
	// cell is not a number, vals and empty are dropped: every read of the
	// column is an error.
	vals     []float64
	empty    []int
	bad      *cell // the first cell, not empty, that is not a number
	unparsed *cell // the first cell that is not a number, empty or not
}

// cell is a cell that is not a number, for the message: its row in the
// column, from 0, and its text.
type cell struct {
	row  int
	text string
}

func (c *cell) err() error { return fmt.Errorf("%q is not a number", c.text) }

// add appends the cell f, a CSV field, at row: its text to an ID column,
// its value to a column of numbers. f is the reader's, valid until the
// next record.
func (c *column) add(f []byte, row int) {
	if c.text {
		c.cells = append(c.cells, f...)
		c.ends = append(c.ends, int32(len(c.cells)))
		return
	}
	if c.bad != nil {
		return
	}
	t := f
	if len(t) == 0 || !printable(t[0]) || !printable(t[len(t)-1]) {
		t = bytes.TrimSpace(t)
	}
	if len(t) == 0 {
		if c.unparsed == nil {
			c.unparsed = &cell{row, string(f)}
		}
		c.empty = append(c.empty, row)
		c.vals = append(c.vals, 0)
		return
	}
	v, err := parseFloat(t)
	if err != nil {
		c.bad = &cell{row, string(f)}
		if c.unparsed == nil {
			c.unparsed = c.bad
		}
		c.vals, c.empty = nil, nil
		return
	}
	c.vals = append(c.vals, v)
}

// printable reports whether b is printable ASCII, which no trimming of
// white space removes.
func printable(b byte) bool { return b > ' ' && b < utf8.RuneSelf }

// numbers is c as a column of numbers: c itself, or an ID column's text
// parsed.
func (c *column) numbers() *column {
	if !c.text {
		return c
	}
	n := &column{vals: make([]float64, 0, len(c.ends))}
	start := int32(0)
	for i, end := range c.ends {
		n.add(c.cells[start:end], i)
		start = end
	}
	return n
}

// strings is an ID column's text, a string a cell, made once: the cells
// are slices of one string.
func (c *column) strings() []string {
	if c.strs == nil {
		all := string(c.cells)
		c.strs = make([]string, len(c.ends))
		start := int32(0)
		for i, end := range c.ends {
			c.strs[i] = all[start:end]
			start = end
		}
	}
	return c.strs
}

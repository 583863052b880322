package input

import "strings"

// IDs turns the sample and item IDs a reader decodes into strings. A run of
// equal IDs, as in a file sorted by sample, shares one string, and a new one
// is a copy that holds no reference to the reader's buffers.
//
// The zero value is ready to use; keep one per column.
type IDs struct {
	last string
}

// From returns the ID of s.
func (d *IDs) From(s string) string {
	if s != d.last {
		d.last = strings.Clone(s)
	}
	return d.last
}

// FromBytes returns the ID of b.
func (d *IDs) FromBytes(b []byte) string {
	if string(b) != d.last {
		d.last = string(b)
	}
	return d.last
}

// Interner hands out one string per distinct name, so that the records of a
// long file share their metric names instead of each holding a copy. It
// keeps at most 10,000 names.
type Interner map[string]string

// InternBytes returns the string of name.
func (in Interner) InternBytes(name []byte) string {
	if s, ok := in[string(name)]; ok {
		return s
	}
	return in.add(string(name))
}

// Intern returns the string of name.
func (in Interner) Intern(name string) string {
	if s, ok := in[name]; ok {
		return s
	}
	return in.add(strings.Clone(name))
}

func (in Interner) add(s string) string {
	if len(in) < 10_000 {
		in[s] = s
	}
	return s
}

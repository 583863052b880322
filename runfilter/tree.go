package runfilter

import "time"

// A Filter is a parsed run search expression; see the package comment. The
// zero Filter, an empty expression's, matches every run.
type Filter struct {
	root node
}

// An Order is a parsed order key: Key ascending, or descending with Desc.
type Order struct {
	Key  Operand
	Desc bool
}

// An Operand is what a comparison or an order key reads of a run.
type Operand struct {
	Kind Kind
	Name string // the NAME of params.NAME, tags.NAME and metrics.NAME
}

// Kind is the kind of an operand: an attribute of the run, or a family of
// named values.
type Kind string

// The kinds of operands, as the language spells them.
const (
	Run       Kind = "run"
	Created   Kind = "created"
	GitCommit Kind = "git_commit"
	Params    Kind = "params"
	Tags      Kind = "tags"
	Metrics   Kind = "metrics"
)

// node is a node of a filter's expression tree.
type node interface {
	sql(c Columns) string
}

type boolNode struct {
	op          string // AND, OR
	left, right node
}

type notNode struct{ inner node }

type cmpNode struct {
	operand Operand
	op      string
	values  []value // one, or several for IN
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

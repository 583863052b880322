package evaluate

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/verdict-ml/verdict/internal/input"
)

// TRECRankings reads a TREC run and its qrels, the format of trec_eval:
//
//   - qrels lines are "query iteration document relevance", separated by
//     blanks; a document is relevant when its relevance is above 0. A
//     document judged twice for a query is relevant if either judgement
//     says so, and counts once in R.
//   - run lines are "query Q0 document rank score tag". The rank column is
//     ignored: like trec_eval, the reader ranks each query's documents by
//     score, highest first, and breaks ties by document ID in descending
//     byte order ("d9" before "d10", and "b" before "a").
//
// Each query of the run is one row, with the query ID as its sample ID,
// in the order the run first names them. A query of the run without a
// relevant document in the qrels is a row without targets. A qrels query
// with relevant documents that the run does not name is a row of its own,
// after the run's, with no hits (as trec_eval -c counts it);
// MissingQueries says how many there are.
//
// The qrels are read whole when the reader opens, as trec_eval does. The
// run is read twice: once when the reader opens, for each query's number
// of documents, and once more while streaming. When the run's lines are
// grouped by query, as trec_eval and every common toolkit write them, the
// second pass holds one query at a time; otherwise the first pass stops
// at the first line out of its group, and the reader reads the whole run
// into memory. What it holds is bounded (RankingOptions.MaxHeldBytes).
//
// With validation on, a score must be finite and a document may appear
// only once per query (trec_eval refuses such runs too).
type TRECRankings struct {
	readerCore
	runPath   string
	qrelsPath string
	grouped   bool

	docs    map[string]int32 // relevant documents of the qrels, by ID; names holds them by index
	queries []*qrelsQuery    // in qrels order
	byQuery map[string]*qrelsQuery

	file    *input.File
	lines   *input.Lines
	ids     input.IDs // the run's query IDs
	pending *runQuery // the next query of a grouped run, read ahead
	whole   []*runQuery
	nextQ   int // the next query of whole, or of queries for missing ones
	cur     runQuery
	inRun   bool // still reading the run's queries
	order   []int32
}

// qrelsQuery is a query of the qrels and its relevant documents' IDs.
type qrelsQuery struct {
	id       string
	relevant []int32 // sorted, distinct once the qrels are read
	inRun    bool
}

// runQuery is one query of a run: its documents, their scores and the
// lines they are on.
type runQuery struct {
	id   string
	text []byte // the documents' IDs, one after another
	docs []runDoc
}

type runDoc struct {
	score      float64
	start, end int32 // of the ID in text
	line       int64
}

// runDocBytes is the size of a runDoc, for heldMemory.
const runDocBytes = 24

func (q *runQuery) doc(i int) []byte { d := q.docs[i]; return q.text[d.start:d.end] }

func (q *runQuery) reset(id string) {
	q.id, q.text, q.docs = id, q.text[:0], q.docs[:0]
}

// OpenTRECRankings reads the qrels file at qrels, reads the run file at run
// once to count each query's documents and to see whether its lines are
// grouped by query, and returns a reader of the run's rankings.
//
// The width is that of the query with the most documents, capped at
// opts.Width when it is set.
//
// It returns an error wrapping ErrBadInput for a malformed qrels line (or
// run line, when the run is read whole) and for input that would hold more
// memory than opts.MaxHeldBytes, and the *os.PathError of os.Open when a
// file cannot be opened. Next reports the problems of the run's
// lines, each naming the line, the row and the query.
func OpenTRECRankings(run, qrels string, opts RankingOptions) (_ *TRECRankings, err error) {
	r := &TRECRankings{
		readerCore: newReaderCore(opts),
		runPath:    run,
		qrelsPath:  qrels,
		docs:       map[string]int32{},
		byQuery:    map[string]*qrelsQuery{},
		inRun:      true,
	}
	r.missingText = "qrels queries with relevant documents are missing from the run: scored as rows with no hits (as trec_eval -c)"
	if err := r.readQrels(); err != nil {
		return nil, err
	}
	r.stamps.grow(len(r.names))
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.file, err = input.Open(run, "a run file", &r.meter); err != nil {
		return nil, err
	}
	most, grouped, err := r.scanRun()
	if err != nil {
		return nil, err
	}
	if r.lines, err = r.rewind(); err != nil {
		return nil, err
	}
	if !grouped {
		if most, err = r.readWholeRun(); err != nil {
			return nil, err
		}
	}
	r.width, r.grouped = opts.width(most), grouped
	return r, nil
}

// readQrels reads the qrels file whole.
func (r *TRECRankings) readQrels() error {
	f, err := input.Open(r.qrelsPath, "a qrels file", nil)
	if err != nil {
		return err
	}
	defer f.Close()
	text, err := f.Text(ErrBadInput)
	if err != nil {
		return err
	}
	lines := input.NewLines(text)
	var fields [5][]byte
	for {
		line, err := lines.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return input.ReadError(ErrBadInput, input.Location{Path: r.qrelsPath, Pos: lines.N + 1}, err)
		}
		n := splitFields(line, fields[:])
		if n == 0 {
			continue
		}
		loc := input.Location{Path: r.qrelsPath, Pos: lines.N, SampleNoun: "query"}
		if n != 4 {
			return loc.Errorf(ErrBadInput, "%s, but a qrels line has 4: query, iteration, document, relevance", fieldCount(n, len(fields)))
		}
		query := input.TrimID(string(fields[0]))
		loc = loc.WithSample(query)
		if problem := input.IDProblem("query ID", query); problem != "" {
			return loc.Errorf(ErrBadInput, "%s", problem)
		}
		rel, err := strconv.ParseInt(string(fields[3]), 10, 64)
		if err != nil {
			return loc.Errorf(ErrBadInput, "relevance %q is not an integer", fields[3])
		}
		q := r.byQuery[query]
		if q == nil {
			q = &qrelsQuery{id: query}
			r.byQuery[q.id] = q
			n := cap(r.queries)
			r.queries = append(r.queries, q)
			r.held.add(heldQrelsQuery + len(query) + grown(n, cap(r.queries), 8))
		}
		if rel > 0 {
			id, ok := r.docs[string(fields[2])]
			if !ok {
				id = int32(len(r.names))
				n := cap(r.names)
				r.names = append(r.names, string(fields[2]))
				r.docs[r.names[id]] = id
				r.held.add(heldQrelsDoc + len(fields[2]) + grown(n, cap(r.names), 16))
			}
			n := cap(q.relevant)
			q.relevant = append(q.relevant, id)
			r.held.add(grown(n, cap(q.relevant), 4))
		}
		if r.held.over() {
			return r.held.refuse(loc, "the targets held in memory pass %s; verdict holds a qrels file whole, as trec_eval does: split the evaluation into parts")
		}
	}
	for _, q := range r.queries {
		slices.Sort(q.relevant)
		q.relevant = slices.Compact(q.relevant)
	}
	return nil
}

// scanRun reads the run once for the largest number of documents of a
// query, and whether each query's lines are together. It stops at the
// first line that shows they are not, since the run is then read whole,
// which counts each query's documents.
func (r *TRECRankings) scanRun() (most int, grouped bool, err error) {
	lines, err := r.rewind()
	if err != nil {
		return 0, false, err
	}
	// seen holds every query ID of the run; it is garbage once the scan
	// is over.
	seen := map[string]bool{}
	held := 0
	defer func() { r.held.add(-held) }()
	var (
		cur    []byte
		count  int
		fields [1][]byte
	)
	for {
		line, err := lines.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false, r.readError(lines.N+1, err)
		}
		if splitFields(line, fields[:]) == 0 {
			continue
		}
		if q := bytes.TrimSpace(fields[0]); !bytes.Equal(q, cur) || cur == nil {
			if seen[string(q)] {
				return 0, false, nil
			}
			seen[string(q)] = true
			held += heldMapEntry + len(q)
			r.held.add(heldMapEntry + len(q))
			if r.held.over() {
				at := input.Location{Path: r.runPath, Pos: lines.N, SampleNoun: "query"}.WithSample(string(q))
				return 0, false, r.held.refuse(at, "the run's query IDs held in memory pass %s with the qrels; verdict keeps them to tell whether the run is grouped by query: split the evaluation into parts")
			}
			cur = append(cur[:0], q...)
			count = 0
		}
		count++
		most = max(most, count)
	}
	return most, true, nil
}

// readWholeRun reads a run whose lines are not grouped by query, query by
// query in the order of their first lines, and returns the largest number
// of documents of a query.
func (r *TRECRankings) readWholeRun() (most int, _ error) {
	byID := map[string]int{}
	for {
		q, line, problem, err := r.readLine()
		if err == io.EOF {
			return most, nil
		}
		if err != nil {
			return 0, err
		}
		i, ok := byID[q]
		if !ok {
			i = len(r.whole)
			byID[q] = i
			n := cap(r.whole)
			r.whole = append(r.whole, &runQuery{id: q})
			r.held.add(heldRunQuery + len(q) + grown(n, cap(r.whole), 8))
		}
		if problem != "" {
			return 0, r.lineError(q, line, int64(i), problem)
		}
		r.held.add(r.whole[i].add(line))
		most = max(most, len(r.whole[i].docs))
		if r.held.over() {
			return 0, r.held.refuse(r.queryAt(line.line, int64(i), q), "the run held in memory passes %s with the qrels; its queries are not grouped, so verdict holds it whole: sort the run by query (sort -k1,1 -s) so that it streams")
		}
	}
}

// runLine is a parsed run line.
type runLine struct {
	doc   []byte
	score float64
	line  int64
}

// add appends a line's document to q and returns the bytes by which q
// grew.
func (q *runQuery) add(l runLine) int {
	text, docs := cap(q.text), cap(q.docs)
	start := int32(len(q.text))
	q.text = append(q.text, l.doc...)
	q.docs = append(q.docs, runDoc{score: l.score, start: start, end: int32(len(q.text)), line: l.line})
	return grown(text, cap(q.text), 1) + grown(docs, cap(q.docs), runDocBytes)
}

// readLine reads and parses the next line of the run, skipping blank ones.
// The query ID is a new string only when it differs from the current
// query's. A line that is not right comes back with the problem, for the
// caller to report with the row it belongs to.
func (r *TRECRankings) readLine() (query string, l runLine, problem string, err error) {
	var fields [7][]byte
	for {
		line, err := r.lines.Next()
		if err != nil {
			if err == io.EOF {
				return "", l, "", io.EOF
			}
			return "", l, "", r.readError(r.lines.N+1, err)
		}
		n := splitFields(line, fields[:])
		if n == 0 {
			continue
		}
		query = r.ids.FromBytes(fields[0])
		l.line = r.lines.N
		if problem := input.IDProblem("query ID", query); problem != "" {
			return query, l, problem, nil
		}
		if n != 6 {
			return query, l, fieldCount(n, len(fields)) + ", but a run line has 6: query, Q0, document, rank, score, run tag", nil
		}
		l.doc = fields[2]
		l.score, err = input.ParseNumber(string(fields[4]))
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return query, l, fmt.Sprintf("score %q is not a number", fields[4]), nil
		}
		if r.validate && (math.IsNaN(l.score) || math.IsInf(l.score, 0)) {
			return query, l, fmt.Sprintf("score %q is not finite", fields[4]), nil
		}
		return query, l, "", nil
	}
}

// lineError reports a problem on a line of the run, in the given row.
func (r *TRECRankings) lineError(query string, l runLine, row int64, problem string) error {
	return r.queryAt(l.line, row, query).Errorf(ErrBadInput, "%s", problem)
}

// rewind starts reading the run again from its beginning.
func (r *TRECRankings) rewind() (*input.Lines, error) {
	if err := r.file.Rewind(); err != nil {
		return nil, err
	}
	text, err := r.file.Text(ErrBadInput)
	if err != nil {
		return nil, err
	}
	return input.NewLines(text), nil
}

// readError reports a failure to read the run at line.
func (r *TRECRankings) readError(line int64, err error) error {
	return input.ReadError(ErrBadInput, input.Location{Path: r.runPath, Pos: line}, err)
}

// queryAt locates a query of the run: its line (0: none), its row and its ID.
func (r *TRECRankings) queryAt(line, row int64, query string) input.Location {
	at := rowAt(r.runPath, row, query)
	at.Pos, at.SampleNoun = line, "query"
	return at
}

// Grouped reports whether the run's lines are grouped by query, so that it
// is streamed rather than read whole.
func (r *TRECRankings) Grouped() bool { return r.grouped }

// MissingQueries is the number of qrels queries with relevant documents
// that the run does not name, each a row with no hits. It is complete once
// Next has returned io.EOF.
func (r *TRECRankings) MissingQueries() int { return r.missing }

// Close closes the run file.
func (r *TRECRankings) Close() error {
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

// Next returns the next batch of rows, or io.EOF after the last one.
func (r *TRECRankings) Next() (*Batch, error) { return r.next(r.nextRow) }

// nextRow appends the next query's row to the batch.
func (r *TRECRankings) nextRow() (bool, error) {
	q, err := r.nextQuery()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, r.addRow(q)
}

// nextQuery returns the next query of the run, then each missing query with
// no documents, then io.EOF.
func (r *TRECRankings) nextQuery() (*runQuery, error) {
	if r.inRun {
		q, err := r.nextRunQuery()
		if err != io.EOF {
			return q, err
		}
		r.inRun, r.nextQ = false, 0
	}
	for r.nextQ < len(r.queries) {
		q := r.queries[r.nextQ]
		r.nextQ++
		if !q.inRun && len(q.relevant) > 0 {
			r.missing++
			r.cur.reset(q.id)
			return &r.cur, nil
		}
	}
	return nil, io.EOF
}

// nextRunQuery returns the next query of the run.
func (r *TRECRankings) nextRunQuery() (*runQuery, error) {
	if !r.grouped {
		if r.nextQ == len(r.whole) {
			return nil, io.EOF
		}
		r.nextQ++
		return r.whole[r.nextQ-1], nil
	}
	if r.pending == nil {
		// The first query.
		q, l, problem, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if problem != "" {
			return nil, r.lineError(q, l, r.row, problem)
		}
		r.pending = &runQuery{}
		r.pending.reset(q)
		r.held.add(r.pending.add(l))
	}
	if r.pending.id == "" {
		return nil, io.EOF
	}
	// Swap the pending query in as the current one, and read the rest of
	// its lines.
	r.cur, *r.pending = *r.pending, r.cur
	r.pending.reset("")
	for {
		q, l, problem, err := r.readLine()
		if err == io.EOF {
			return &r.cur, nil
		}
		if err != nil {
			return nil, err
		}
		if problem != "" {
			row := r.row
			if q != r.cur.id {
				row++
			}
			return nil, r.lineError(q, l, row, problem)
		}
		if q != r.cur.id {
			r.pending.reset(q)
			r.held.add(r.pending.add(l))
			return &r.cur, nil
		}
		r.held.add(r.cur.add(l))
		if r.held.over() {
			return nil, r.held.refuse(r.queryAt(l.line, r.row, q), "the query's documents held in memory pass %s with the qrels; verdict holds a query's documents together to rank them: keep only each query's top documents")
		}
	}
}

// addRow ranks a query's documents and appends its row to the batch.
func (r *TRECRankings) addRow(q *runQuery) error {
	var relevant []int32
	if qq := r.byQuery[q.id]; qq != nil {
		qq.inRun = qq.inRun || len(q.docs) > 0
		relevant = qq.relevant
	}
	if r.validate && len(q.docs) > 1 {
		if err := r.checkDuplicates(q, r.queryAt(0, r.row, q.id)); err != nil {
			return err
		}
	}
	slices.SortFunc(q.docs, func(x, y runDoc) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return bytes.Compare(q.text[y.start:y.end], q.text[x.start:x.end])
	})
	hits := r.startRow(q.id, relevant)
	ranked := min(len(q.docs), r.width)
	if len(relevant) > 0 {
		for i := range ranked {
			if id, ok := r.docs[string(q.doc(i))]; ok {
				hits[i] = r.stamps.isTarget(id)
			}
		}
	}
	if !r.noItems {
		it := &r.b.items
		for i := range ranked {
			it.appendText(q.doc(i))
			it.scores = append(it.scores, q.docs[i].score)
		}
	}
	r.endRow(ranked, true)
	return nil
}

// checkDuplicates reports a document that appears twice in a query.
func (r *TRECRankings) checkDuplicates(q *runQuery, loc input.Location) error {
	order := r.order[:0]
	for i := range q.docs {
		order = append(order, int32(i))
	}
	r.held.add(grown(cap(r.order), cap(order), 4))
	r.order = order
	slices.SortFunc(order, func(x, y int32) int {
		if c := bytes.Compare(q.doc(int(x)), q.doc(int(y))); c != 0 {
			return c
		}
		return cmp.Compare(q.docs[x].line, q.docs[y].line)
	})
	for i := 1; i < len(order); i++ {
		a, b := q.docs[order[i-1]], q.docs[order[i]]
		if bytes.Equal(q.doc(int(order[i-1])), q.doc(int(order[i]))) {
			loc.Pos = b.line
			return loc.Errorf(ErrBadInput, "document %q appears twice, on lines %d and %d", q.doc(int(order[i])), a.line, b.line)
		}
	}
	return nil
}

// splitFields splits a line at blanks (spaces and tabs) into fields, as
// many as fit, and returns how many fields the line has, up to len(fields)+1
// (meaning more than fit).
func splitFields(line []byte, fields [][]byte) int {
	n := 0
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		start := i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		if n == len(fields) {
			return n + 1
		}
		fields[n] = line[start:i]
		n++
	}
	return n
}

// fieldCount describes a field count that splitFields returned with room
// for the given number of fields.
func fieldCount(n, room int) string {
	switch {
	case n == 1:
		return "1 field"
	case n > room:
		return fmt.Sprintf("more than %d fields", room)
	}
	return strconv.Itoa(n) + " fields"
}

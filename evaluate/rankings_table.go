package evaluate

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/verdict-ml/verdict/internal/input"
)

// TableRankings reads rankings from two long tables, in CSV, TSV (either
// optionally gzipped) or Parquet, told apart by their extensions:
//
//   - predictions: one line per predicted item, with the columns sample_id,
//     item, and rank or score. A sample's items are ordered by rank,
//     lowest first, or by score, highest first, with ties broken by item ID
//     in descending byte order as trec_eval breaks them. With both columns,
//     rank orders and score is ignored. The lines of a sample must be
//     together (grouped by sample_id), in any order within the group;
//     samples come out as rows in the order of their groups.
//   - targets: one line per relevant item, with the columns sample_id and
//     item, in any order. The same item twice for a sample counts once.
//
// Other columns are ignored. IDs are text; integer columns of a Parquet
// file are read as their decimal text, so that item 42 is the same item,
// and gives the same fingerprint, as in a CSV file or a NumPy column.
//
// The targets are read whole when the reader opens, with item IDs interned;
// the predictions are streamed one sample at a time. A sample of the targets
// without predictions is a row of its own, after the predictions' rows,
// with no hits; MissingSamples says how many there are. What the reader
// holds is bounded (RankingOptions.MaxHeldBytes).
//
// Without RankingOptions.Width, the width is the number of predictions of
// the first sample, and with validation on a later sample with more is an
// error (without it, only its top ones are read). With validation on, a
// sample may not predict an item twice or repeat a rank, and scores must be
// finite.
type TableRankings struct {
	readerCore
	predPath string
	capped   bool // the width is RankingOptions.Width
	byRank   bool // order by rank rather than by score

	items    map[string]int32 // interned item IDs, of targets and predictions; names holds them by index
	byNumber []int32          // for item IDs that are small integers: index+1, or 0
	samples  []tableSample    // of the targets, in order of first line
	bySamp   map[string]int32 // index into samples
	related  []int32          // the targets' items, sample after sample

	pred   tableSource
	file   *input.File
	seen   map[string]int64 // the row of each predicted sample
	rec    tableRecord      // the first record of the next sample
	recOK  bool             // rec holds a record
	group  tableGroup
	nextS  int // the next sample to check for missing rows
	inPred bool
}

// tableSample is a sample of the targets: its ID, its distinct relevant
// items in related[start:end], and whether the predictions have it.
type tableSample struct {
	id         string
	start, end int32
	predicted  bool
}

// tableSampleBytes is the size of a tableSample, for heldMemory.
const tableSampleBytes = 32

// tableGroup is the predictions of one sample.
type tableGroup struct {
	id    string
	items []int32
	keys  []float64
	pos   []int64
	order []int32
}

// tableRecord is one record of a long table.
type tableRecord struct {
	pos  int64  // line (text) or 1-based record (Parquet)
	id   string // sample ID
	item string // valid until the next record
	key  float64
}

// tableSource reads the records of a long table.
type tableSource interface {
	// next reads the next record into rec, or returns io.EOF. A problem
	// with the record's cells comes back as problem, for the caller to
	// report with the row; rec.pos and, when known, rec.id are set.
	next(rec *tableRecord) (problem string, err error)
	// unit is what a position counts: "line" or "record".
	unit() string
	close() error
}

// OpenTableRankings reads the targets table at targets whole, opens the
// predictions table at predictions and reads its first sample, which sets
// the width unless opts.Width does.
//
// It returns an error wrapping ErrUnknownFormat when a file's extension is
// not .csv, .tsv (each optionally followed by .gz) or .parquet, one wrapping
// ErrBadInput for a missing column, a malformed targets record or targets
// that would hold more memory than opts.MaxHeldBytes, and the
// *os.PathError of os.Open when a file cannot be opened.
func OpenTableRankings(predictions, targets string, opts RankingOptions) (_ *TableRankings, err error) {
	r := &TableRankings{
		readerCore: newReaderCore(opts),
		predPath:   predictions,
		items:      map[string]int32{},
		bySamp:     map[string]int32{},
		seen:       map[string]int64{},
		inPred:     true,
	}
	r.missingText = "samples of the targets have no predictions: scored as rows with no hits"
	if err := r.readTargets(targets); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	var cols tableColumns
	r.pred, cols, r.file, err = openTable(predictions, &r.meter, true)
	if err != nil {
		return nil, err
	}
	r.byRank = cols.rank != ""
	if opts.Width > 0 {
		r.width, r.capped = opts.Width, true
	}
	// Read ahead to the first record of the first sample; readGroup reads
	// the rest. Without a width, the first sample sets it.
	if err := r.readAhead(); err != nil {
		return nil, err
	}
	if !r.capped && r.recOK {
		if err := r.readGroup(); err != nil {
			return nil, err
		}
		r.width = len(r.group.items)
	}
	return r, nil
}

// tableColumns names the columns of a table that its reader uses; rank and
// score are empty when absent.
type tableColumns struct {
	rank, score string
}

// openTable opens a long table, by its extension, and reads its header or
// schema. Predictions need a rank or a score column as well as sample_id
// and item. The file's size goes on m, when it is not nil.
func openTable(path string, m *input.Meter, predictions bool) (_ tableSource, cols tableColumns, _ *input.File, err error) {
	name := strings.ToLower(filepath.Base(path))
	base, gz := strings.CutSuffix(name, ".gz")
	format := strings.TrimPrefix(filepath.Ext(base), ".")
	if format != "csv" && format != "tsv" && (format != "parquet" || gz) {
		return nil, cols, nil, &tableFormatError{path: path}
	}
	f, err := input.Open(path, "a table", m)
	if err != nil {
		return nil, cols, nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	var (
		src   tableSource
		names []string
	)
	where := input.Location{Path: path}
	if format == "parquet" {
		var ps *pqTable
		if ps, names, err = openPQTable(path, f.ReaderAt(), f.Size()); err != nil {
			return nil, cols, nil, err
		}
		src = ps
	} else {
		var cs *csvTable
		if cs, names, err = openCSVTable(path, f, format == "tsv"); err != nil {
			return nil, cols, nil, err
		}
		src = cs
		where.Pos = 1
	}
	has := func(c string) bool { return slices.Contains(names, c) }
	for _, c := range []string{"sample_id", "item"} {
		if !has(c) {
			return nil, cols, nil, where.Errorf(ErrBadInput, "no %q column among %s", c, input.QuoteList(names))
		}
	}
	if predictions {
		if has("rank") {
			cols.rank = "rank"
		} else if has("score") {
			cols.score = "score"
		} else {
			return nil, cols, nil, where.Errorf(ErrBadInput, "no %q or %q column among %s; the predictions need one to order each sample's items",
				"rank", "score", input.QuoteList(names))
		}
	}
	key := cols.rank + cols.score
	switch s := src.(type) {
	case *csvTable:
		s.bind(names, key)
	case *pqTable:
		err = s.bind(key)
	}
	if err != nil {
		return nil, cols, nil, err
	}
	return src, cols, f, nil
}

// tableFormatError is the error of OpenTableRankings for a file that is
// not named like a table it reads. It wraps ErrUnknownFormat.
type tableFormatError struct{ path string }

func (e *tableFormatError) Error() string {
	return e.path + ": not a table by its name: a table must be .csv, .tsv (either may be gzipped, as .csv.gz) or .parquet"
}

func (e *tableFormatError) Unwrap() error { return ErrUnknownFormat }

// readTargets reads the targets table whole: interned items, grouped by
// sample, sorted and distinct.
func (r *TableRankings) readTargets(path string) error {
	src, _, f, err := openTable(path, nil, false)
	if err != nil {
		return err
	}
	defer f.Close()
	defer src.close()
	var (
		rec      tableRecord
		sampleOf []int32 // sample index of each line
		itemOf   []int32
	)
	for {
		problem, err := src.next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if problem != "" {
			at := input.Location{Path: path, Unit: src.unit(), Pos: rec.pos, Sample: rec.id, HasSample: rec.id != ""}
			return at.Errorf(ErrBadInput, "%s", problem)
		}
		s, ok := r.bySamp[rec.id]
		if !ok {
			s = int32(len(r.samples))
			r.bySamp[rec.id] = s
			n := cap(r.samples)
			r.samples = append(r.samples, tableSample{id: rec.id})
			r.held.add(heldSample + len(rec.id) + grown(n, cap(r.samples), tableSampleBytes))
		}
		ns, ni := cap(sampleOf), cap(itemOf)
		sampleOf = append(sampleOf, s)
		itemOf = append(itemOf, r.intern(rec.item))
		r.held.add(heldTargetLine + grown(ns, cap(sampleOf), 4) + grown(ni, cap(itemOf), 4))
		if r.held.over() {
			at := input.Location{Path: path, Unit: src.unit(), Pos: rec.pos}.WithSample(rec.id)
			return r.held.refuse(at, "the targets held in memory pass %s; verdict holds a targets table whole: split the evaluation into parts")
		}
	}
	// sampleOf and itemOf, and the counts and fill positions, are garbage
	// once related is filled.
	defer r.held.add(-grown(0, cap(sampleOf), 4) - grown(0, cap(itemOf), 4) - 8*len(r.samples))
	// Counting sort of the items by sample, then each sample's sorted and
	// made distinct.
	counts := make([]int32, len(r.samples)+1)
	for _, s := range sampleOf {
		counts[s+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	r.related = make([]int32, len(itemOf))
	fill := slices.Clone(counts[:len(r.samples)])
	for i, s := range sampleOf {
		r.related[fill[s]] = itemOf[i]
		fill[s]++
	}
	w := int32(0)
	for i := range r.samples {
		items := r.related[counts[i]:counts[i+1]]
		slices.Sort(items)
		items = slices.Compact(items)
		start := w
		w += int32(copy(r.related[w:], items))
		r.samples[i].start, r.samples[i].end = start, w
	}
	r.related = slices.Clip(r.related[:w])
	return nil
}

// intern returns the index of an item ID, adding it when new. Item IDs are
// often small integers; those skip the map for a table indexed by their
// value.
func (r *TableRankings) intern(item string) int32 {
	v, small := smallDecimal(item)
	if small && v < len(r.byNumber) && r.byNumber[v] > 0 {
		return r.byNumber[v] - 1
	}
	id, ok := r.items[item]
	if !ok {
		id = int32(len(r.names))
		s := strings.Clone(item)
		n := cap(r.names)
		r.names = append(r.names, s)
		r.items[s] = id
		r.stamps.grow(len(r.names))
		r.held.add(heldItem + len(s) + grown(n, cap(r.names), 16))
	}
	if small {
		if v >= len(r.byNumber) {
			n := cap(r.byNumber)
			r.byNumber = append(r.byNumber, make([]int32, v+1-len(r.byNumber))...)
			r.held.add(grown(n, cap(r.byNumber), 4))
		}
		r.byNumber[v] = id + 1
	}
	return id
}

// maxSmallDecimal bounds the item IDs that intern looks up by value.
const maxSmallDecimal = 1 << 22

// smallDecimal parses the canonical decimal text of an integer from 0 to
// maxSmallDecimal−1, without sign or leading zeros, so that equal values
// are equal texts.
func smallDecimal(s string) (int, bool) {
	if len(s) == 0 || len(s) > 7 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = 10*v + int(c-'0')
	}
	return v, v < maxSmallDecimal
}

// readAhead reads the next record of the predictions into r.rec, checking
// its cells; r.recOK is false at the end.
func (r *TableRankings) readAhead() error {
	problem, err := r.pred.next(&r.rec)
	if err == io.EOF {
		r.recOK = false
		return nil
	}
	if err != nil {
		return err
	}
	if problem != "" {
		return r.recordError(r.rec, problem)
	}
	if r.validate && !r.byRank && (math.IsNaN(r.rec.key) || math.IsInf(r.rec.key, 0)) {
		return r.recordError(r.rec, fmt.Sprintf("score %v is not finite", r.rec.key))
	}
	r.recOK = true
	return nil
}

// recordError reports a problem with a record of the predictions, in the
// row it belongs to: that of the sample being read if it is of the same
// sample, the next one otherwise.
func (r *TableRankings) recordError(rec tableRecord, problem string) error {
	row := r.row
	if len(r.group.items) > 0 && rec.id != r.group.id {
		row++
	}
	a := r.at(rec.pos, row, rec.id)
	a.HasSample = rec.id != ""
	return a.Errorf(ErrBadInput, "%s", problem)
}

// at locates a position of the predictions.
func (r *TableRankings) at(pos, row int64, id string) input.Location {
	at := rowAt(r.predPath, row, id)
	at.Unit, at.Pos = r.pred.unit(), pos
	return at
}

// readGroup reads the predictions of the next sample, starting with r.rec,
// into r.group.
func (r *TableRankings) readGroup() error {
	g := &r.group
	g.id = r.rec.id
	g.items, g.keys, g.pos = g.items[:0], g.keys[:0], g.pos[:0]
	if first, ok := r.seen[g.id]; ok {
		return r.at(r.rec.pos, r.row, g.id).Errorf(ErrBadInput, "sample %q already had its predictions at row %d; the predictions must be grouped by sample_id, so sort them by sample_id first", g.id, first)
	}
	r.seen[g.id] = r.row
	r.held.add(heldMapEntry + len(g.id))
	start := r.held.n
	for r.recOK && r.rec.id == g.id {
		// order, which addGroup fills, has an index of 4 bytes for each
		// item.
		ni, nk, np := cap(g.items), cap(g.keys), cap(g.pos)
		g.items = append(g.items, r.intern(r.rec.item))
		g.keys = append(g.keys, r.rec.key)
		g.pos = append(g.pos, r.rec.pos)
		r.held.add(grown(ni, cap(g.items), 8) + grown(nk, cap(g.keys), 8) + grown(np, cap(g.pos), 8))
		if r.held.over() {
			at := r.at(r.rec.pos, r.row, g.id)
			// Blame the sample when it added most of what is held, the
			// IDs of all the samples otherwise.
			if r.held.n-start > r.held.max/2 {
				return r.held.refuse(at, "the sample's predictions held in memory pass %s with the targets; verdict holds a sample's predictions together to rank them: keep only each sample's top predictions")
			}
			return r.held.refuse(at, "the predictions' sample and item IDs held in memory pass %s with the targets; verdict keeps them to check that each sample's predictions are together and to match items: split the evaluation into parts")
		}
		if err := r.readAhead(); err != nil {
			return err
		}
	}
	return nil
}

// MissingSamples is the number of samples of the targets that the
// predictions do not have, each a row with no hits. It is complete once
// Next has returned io.EOF.
func (r *TableRankings) MissingSamples() int { return r.missing }

// Close closes the predictions.
func (r *TableRankings) Close() error {
	if r.file == nil {
		return nil
	}
	err := errors.Join(r.pred.close(), r.file.Close())
	r.file = nil
	return err
}

// Next returns the next batch of rows, or io.EOF after the last one.
func (r *TableRankings) Next() (*Batch, error) { return r.next(r.nextRow) }

// nextRow appends the next row to the batch: the next sample of the
// predictions, then the targets' samples without predictions.
func (r *TableRankings) nextRow() (bool, error) {
	if r.inPred {
		if len(r.group.items) == 0 && r.recOK {
			if err := r.readGroup(); err != nil {
				return false, err
			}
		}
		if len(r.group.items) > 0 {
			err := r.addGroup()
			r.group.items = r.group.items[:0]
			return err == nil, err
		}
		r.inPred = false
	}
	for r.nextS < len(r.samples) {
		s := &r.samples[r.nextS]
		r.nextS++
		if !s.predicted {
			r.missing++
			r.addRow(s.id, s, nil)
			return true, nil
		}
	}
	return false, nil
}

// addGroup ranks the current sample's predictions and appends its row.
func (r *TableRankings) addGroup() error {
	g := &r.group
	g.order = g.order[:0]
	for i := range g.items {
		g.order = append(g.order, int32(i))
	}
	if r.byRank {
		slices.SortStableFunc(g.order, func(x, y int32) int { return cmp.Compare(g.keys[x], g.keys[y]) })
	} else {
		slices.SortFunc(g.order, func(x, y int32) int {
			if c := cmp.Compare(g.keys[y], g.keys[x]); c != 0 {
				return c
			}
			return strings.Compare(r.names[g.items[y]], r.names[g.items[x]])
		})
	}
	if r.validate {
		if err := r.checkGroup(); err != nil {
			return err
		}
	}
	var s *tableSample
	if i, ok := r.bySamp[g.id]; ok {
		s = &r.samples[i]
		s.predicted = true
	}
	r.addRow(g.id, s, g)
	return nil
}

// checkGroup validates the current sample's predictions, sorted: no more
// than the width unless it is a cap, no rank twice, no item twice.
func (r *TableRankings) checkGroup() error {
	g := &r.group
	if !r.capped && len(g.items) > r.width {
		return r.at(g.pos[0], r.row, g.id).Errorf(ErrBadInput, "%d predictions, more than the %d of the first sample; set the width (the largest cutoff) to read only the top ones",
			len(g.items), r.width)
	}
	if r.byRank {
		for i := 1; i < len(g.order); i++ {
			a, b := g.order[i-1], g.order[i]
			if g.keys[a] == g.keys[b] {
				first, second := min(g.pos[a], g.pos[b]), max(g.pos[a], g.pos[b])
				return r.at(second, r.row, g.id).Errorf(ErrBadInput, "rank %v appears twice, on %ss %d and %d", g.keys[a], r.pred.unit(), first, second)
			}
		}
	}
	r.stamps.newRow()
	for _, i := range g.order {
		if _, again := r.stamps.seen(g.items[i]); again {
			// Report the two lines in file order.
			for _, j := range g.order {
				if g.items[j] == g.items[i] && j != i {
					first, second := min(g.pos[i], g.pos[j]), max(g.pos[i], g.pos[j])
					return r.at(second, r.row, g.id).Errorf(ErrBadInput, "item %q appears twice, on %ss %d and %d", r.names[g.items[i]], r.pred.unit(), first, second)
				}
			}
		}
	}
	return nil
}

// addRow appends a row for sample id with its targets s (nil: none) and
// predictions g (nil: none), with their scores when the table is ordered
// by score.
func (r *TableRankings) addRow(id string, s *tableSample, g *tableGroup) {
	var relevant []int32
	if s != nil {
		relevant = r.related[s.start:s.end]
	}
	hits := r.startRow(id, relevant)
	if g == nil {
		r.endRow(0, !r.byRank)
		return
	}
	ranked := min(len(g.order), r.width)
	if len(relevant) > 0 {
		for k, i := range g.order[:ranked] {
			hits[k] = r.stamps.isTarget(g.items[i])
		}
	}
	if !r.noItems {
		it := &r.b.items
		for _, i := range g.order[:ranked] {
			it.appendName(r.names[g.items[i]])
			if !r.byRank {
				it.scores = append(it.scores, g.keys[i])
			}
		}
	}
	r.endRow(ranked, !r.byRank)
}

// csvTable reads a CSV or TSV long table with a header line.
type csvTable struct {
	r      *input.CSV
	id     int
	item   int
	key    int // -1 without
	keyCol string
	ids    input.IDs
}

func openCSVTable(path string, f *input.File, tsv bool) (*csvTable, []string, error) {
	text, err := f.Text(ErrBadInput)
	if err != nil {
		return nil, nil, err
	}
	comma := ','
	if tsv {
		comma = '\t'
	}
	r, err := input.NewCSV(path, text, comma, input.Columns{Max: input.MaxColumns}, ErrBadInput)
	if err == io.EOF {
		return nil, nil, input.Location{Path: path}.Errorf(ErrBadInput, "the file is empty; it needs a header line naming its columns")
	}
	if err != nil {
		return nil, nil, err
	}
	return &csvTable{r: r, key: -1}, r.Header, nil
}

// bind finds the columns to read; key is "rank", "score" or "".
func (t *csvTable) bind(names []string, key string) {
	t.id, t.item = slices.Index(names, "sample_id"), slices.Index(names, "item")
	if key != "" {
		t.key, t.keyCol = slices.Index(names, key), key
	}
}

func (t *csvTable) next(rec *tableRecord) (string, error) {
	fields, err := t.r.Read()
	if err != nil {
		return "", err
	}
	rec.pos = t.r.Line
	rec.id = ""
	if problem := t.r.Ragged(fields); problem != "" {
		if t.id < len(fields) {
			rec.id = t.ids.From(fields[t.id])
		}
		return problem, nil
	}
	rec.id = t.ids.From(fields[t.id])
	if rec.id == "" {
		return "sample ID missing", nil
	}
	if problem := input.IDProblem("sample ID", rec.id); problem != "" {
		return problem, nil
	}
	rec.item = input.TrimID(fields[t.item])
	if rec.item == "" {
		return "item missing", nil
	}
	if t.key >= 0 {
		text := strings.TrimSpace(fields[t.key])
		v, err := input.ParseNumber(text)
		switch {
		case text == "":
			return t.keyCol + " missing", nil
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return fmt.Sprintf("%s %q is not a number", t.keyCol, text), nil
		}
		rec.key = v
	}
	return "", nil
}

func (t *csvTable) unit() string { return "line" }

func (t *csvTable) close() error { return nil }

// pqTable reads a Parquet long table, a batch of records at a time from
// each column (input.Batches).
type pqTable struct {
	path  string
	file  *parquet.File
	leafs map[string]*parquet.Column
	rows  *input.Batches
	cols  []*input.Column // id, item, and key when there is one
	batch int
	at    int
	pos   int64
}

func openPQTable(path string, r io.ReaderAt, size int64) (*pqTable, []string, error) {
	f, err := input.OpenParquet(path, r, size, ErrBadInput)
	if err != nil {
		return nil, nil, err
	}
	t := &pqTable{path: path, file: f, leafs: map[string]*parquet.Column{}}
	var names []string
	for _, c := range f.Root().Columns() {
		names = append(names, c.Name())
		t.leafs[c.Name()] = c
	}
	return t, names, nil
}

// bind finds the columns to read and checks their types; key is "rank",
// "score" or "".
func (t *pqTable) bind(key string) error {
	file := input.Location{Path: t.path, Unit: "record"}
	for _, name := range []string{"sample_id", "item", key} {
		if name == "" {
			continue
		}
		want := input.WantID
		if name == key {
			want = input.WantNumber
		}
		c, err := input.NewColumn(t.leafs[name], want, file, ErrBadInput)
		if err != nil {
			return err
		}
		t.cols = append(t.cols, c)
	}
	t.rows = input.NewBatches(t.file, t.cols, file, ErrBadInput)
	return nil
}

func (t *pqTable) next(rec *tableRecord) (string, error) {
	for t.at >= t.batch {
		n, err := t.rows.Next()
		if err != nil {
			return "", err
		}
		t.batch, t.at = n, 0
	}
	i := t.at
	t.at++
	t.pos++
	rec.pos = t.pos
	id, item := t.cols[0], t.cols[1]
	rec.id = ""
	if id.Null[i] || id.S[i] == "" {
		return "sample ID missing", nil
	}
	rec.id = id.S[i]
	if problem := input.IDProblem("sample ID", rec.id); problem != "" {
		return problem, nil
	}
	if item.Null[i] || item.S[i] == "" {
		return "item missing", nil
	}
	rec.item = item.S[i]
	if len(t.cols) > 2 {
		k := t.cols[2]
		if k.Null[i] {
			return k.Name + " missing", nil
		}
		rec.key = k.F[i]
	}
	return "", nil
}

func (t *pqTable) unit() string { return "record" }

func (t *pqTable) close() error {
	if t.rows == nil {
		return nil
	}
	return t.rows.Close()
}

package evaluate_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// maxAlloc bounds what reading a hostile file may allocate, freed or not:
// the readers hold a line of at most 4 MiB, a few times over in buffers.
const maxAlloc = 48 << 20

// A gzip stream that expands to one line of gigabytes is refused at that
// line once 4 MiB of it are read, in the TREC run and qrels and in the
// tables. The tests measure memory, so they run one at a time, not in
// parallel.
func TestHugeLineRefused(t *testing.T) {
	const gib = 5 << 10 // MiB of expanded text: 5 GiB
	small := writeFiles(t, map[string][]byte{
		"trec.run":        []byte("q1 Q0 d1 1 0.5 tag\n"),
		"trec.qrels":      []byte("q1 0 d1 1\n"),
		"predictions.csv": []byte("sample_id,item,rank\nu1,i1,1\n"),
		"targets.csv":     []byte("sample_id,item\nu1,i1\n"),
	})
	tooLong := "the line is longer than 4 MiB, the most a line may hold"
	tests := []struct {
		name   string // of the bomb, which stands in for the file of the same name in small
		prefix string
		want   string
	}{
		{name: "trec.run", prefix: "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.25 tag\nq2 Q0 ", want: "line 3: " + tooLong},
		{name: "trec.qrels", prefix: "q1 0 d1 1\nq1 0 ", want: "line 2: " + tooLong},
		{name: "predictions.csv", prefix: "sample_id,item,rank\nu1,i1,1\nu1,", want: "line 3: " + tooLong},
		{name: "targets.csv", prefix: "sample_id,item\nu1,", want: "line 2: " + tooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bomb := inputtest.GzipBomb(t, tt.name+".gz", []byte(tt.prefix), "d", gib, []byte(" 1\n"))
			path := func(name string) string {
				if name == tt.name {
					return bomb
				}
				return filepath.Join(small, name)
			}
			var err error
			alloc := inputtest.Allocated(func() {
				var r evaluate.Rankings
				if filepath.Ext(tt.name) == ".csv" {
					r, err = evaluate.OpenTableRankings(path("predictions.csv"), path("targets.csv"), evaluate.RankingOptions{})
				} else {
					r, err = evaluate.OpenTRECRankings(path("trec.run"), path("trec.qrels"), evaluate.RankingOptions{})
				}
				if err == nil {
					defer r.Close()
					_, _, err = readRankings(t, r)
				}
			})
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, bomb+": "+tt.want)
			require.Less(t, alloc, uint64(maxAlloc), "bytes allocated")
			t.Logf("%s: allocated %.1f MiB", tt.name, float64(alloc)/(1<<20))
		})
	}
}

// A plain header line of 64 MiB in a table is refused once 4 MiB of it are
// read, and so is a header of millions of columns at its 1,025th.
func TestHugeHeaderRefused(t *testing.T) {
	tests := []struct {
		name string
		fill string
		want string
	}{
		{name: "one long name", fill: "m", want: "line 1: the line is longer than 4 MiB, the most a line may hold"},
		{name: "millions of columns", fill: ",m", want: "line 1: the header has more than 1024 columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "targets.csv")
			f, err := os.Create(path)
			require.NoError(t, err)
			_, err = f.WriteString("sample_id,item,")
			require.NoError(t, err)
			for range 64 {
				_, err = f.WriteString(strings.Repeat(tt.fill, (1<<20)/len(tt.fill)))
				require.NoError(t, err)
			}
			_, err = f.WriteString("\nu1,i1\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
			alloc := inputtest.Allocated(func() { _, _, err = evaluate.FingerprintTargets(path, "", "") })
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, path+": "+tt.want)
			require.Less(t, alloc, uint64(maxAlloc), "bytes allocated")
			t.Logf("%s: allocated %.1f MiB", tt.name, float64(alloc)/(1<<20))
		})
	}
}

// A .npy header, or a sparse matrix's shape, may claim elements, a shape or
// a catalogue of any size; nothing is allocated by the claim. Arrays that
// cannot be read are refused with their file, and a matrix of two billion
// columns that holds few is read in little memory.
func TestNPYHugeItemRefused(t *testing.T) {
	oneRow := func(cols int, indices []int32, declare uint64) []byte {
		n := len(indices)
		if declare != 0 {
			n = int(declare-128) / 4
		}
		members := csrNPZ(1, cols, inputtest.Int64s(0, int64(n)), inputtest.Int32s(indices...), nil)
		members[0] = inputtest.Member{Name: "indices", Data: npyArr{"'<i4'", fmt.Sprintf("(%d,)", n), inputtest.Int32s(indices...)}.file(), Declare: declare}
		members[4] = inputtest.Member{Name: "data", Data: npyArr{"'|b1'", fmt.Sprintf("(%d,)", n), bytes.Repeat([]byte{1}, len(indices))}.file()}
		if declare != 0 {
			members[4].Declare = 128 + uint64(n)
		}
		return inputtest.Zip(zip.Store, members...)
	}
	tests := []struct {
		name  string
		files map[string][]byte // over numpyFiles
		rows  []rankedRow       // read without error
		want  string            // after the path of the file named first in files
	}{
		{
			name:  "items of strings of 200 MB",
			files: map[string][]byte{"items.npy": npyArr{"'<U50000000'", "(6, 4)", nil}.file()},
			want:  "has dtype <U50000000; item indices must be integers",
		},
		{
			name:  "sample IDs of 2 GB",
			files: map[string][]byte{"ids.npy": npyArr{"'|S2000000000'", "(6,)", nil}.file()},
			want:  "has dtype |S2000000000, strings longer than the 65536 bytes supported",
		},
		{
			name:  "items whose shape overflows",
			files: map[string][]byte{"items.npy": npyArr{"'<i8'", "(2305843009213693952, 1)", nil}.file()},
			want:  "has shape (2305843009213693952, 1), too large to be real; the header is corrupt",
		},
		{
			name:  "items whose shape the file does not hold",
			files: map[string][]byte{"items.npy": npyArr{"'<i4'", "(1000000, 10)", inputtest.Int32s(1, 2)}.file()},
			want:  "is truncated: it holds 8 bytes of data, less than the 40000000 of its shape (1000000, 10)",
		},
		{
			name: "a row of 100 million targets that are not there",
			files: map[string][]byte{
				"targets.npz": oneRow(10, []int32{1, 2}, 128+400_000_000),
				"items.npy":   npyArr{"'<i4'", "(1, 2)", inputtest.Int32s(1, 2)}.file(),
				"ids.npy":     npyArr{"'<U2'", "(1,)", inputtest.Strings(2, "u0")}.file(),
				"scores.npy":  npyArr{"'<f4'", "(1, 2)", inputtest.Float32s(2, 1)}.file(),
			},
			want: `array "indices": the array ends after 2 of its 100000000 values`,
		},
		{
			name: "two billion columns, few of them used",
			files: map[string][]byte{
				"targets.npz": oneRow(math.MaxInt32, []int32{math.MaxInt32 - 1, 7}, 0),
				"items.npy":   npyArr{"'<i4'", "(1, 3)", inputtest.Int32s(7, math.MaxInt32-2, math.MaxInt32-1)}.file(),
				"ids.npy":     npyArr{"'<U2'", "(1,)", inputtest.Strings(2, "u0")}.file(),
				"scores.npy":  npyArr{"'<f4'", "(1, 3)", inputtest.Float32s(3, 2, 1)}.file(),
			},
			rows: []rankedRow{{"u0", "x.x", 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := numpyFiles()
			var first string
			for name, b := range tt.files {
				files[name] = b
				first = name
			}
			if len(tt.files) > 1 {
				first = "targets.npz"
			}
			dir := writeFiles(t, files)
			path := func(name string) string { return filepath.Join(dir, name) }
			var (
				rows []rankedRow
				err  error
			)
			alloc := inputtest.Allocated(func() {
				var r *evaluate.NumPyRankings
				r, err = evaluate.OpenNumPyRankings(path("items.npy"), path("scores.npy"), path("targets.npz"), path("ids.npy"), evaluate.RankingOptions{})
				if err == nil {
					defer r.Close()
					rows, _, err = readRankings(t, r)
				}
			})
			require.Less(t, alloc, uint64(maxAlloc), "bytes allocated")
			t.Logf("allocated %.1f MiB", float64(alloc)/(1<<20))
			if tt.want == "" {
				require.NoError(t, err)
				require.Equal(t, tt.rows, rows)
				return
			}
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, path(first)+": "+tt.want)
		})
	}
}

// A query or sample ID longer than the store's 1,024 bytes is refused by
// the reader, which knows the file and line (the store knew only the row).
func TestLongSampleIDRefused(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("q", 2000)
	dir := writeFiles(t, map[string][]byte{
		"trec.run":   []byte("q1 Q0 d1 1 0.5 tag\n" + long + " Q0 d1 1 0.5 tag\n"),
		"trec.qrels": []byte("q1 0 d1 1\n"),
	})
	r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "trec.run"), filepath.Join(dir, "trec.qrels"), evaluate.RankingOptions{})
	require.NoError(t, err)
	defer r.Close()
	_, _, err = readRankings(t, r)
	require.ErrorIs(t, err, evaluate.ErrBadInput)
	require.EqualError(t, err, filepath.Join(dir, "trec.run")+`: line 2 (row 1, query "`+long[:64]+`"... (2000 bytes)): the query ID is 2000 bytes long; at most 1024 are allowed`)
}

// heldBomb is an input that the readers hold in memory, by design, more of
// the longer it is: a file of n lines that line appends (or, for a Parquet
// table, records that row makes), standing in for the file of the same
// name in heldSmall.
type heldBomb struct {
	name    string // as in heldSmall
	file    string // the bomb's own name
	head    string // its first lines: a table's header
	line    func(b []byte, i int) []byte
	row     func(i int) pqTargetText // for a Parquet table, instead of line
	perLine int                      // the memory a line holds, about (within a factor of 2)
	want    string                   // the problem, with %s for the bound
	// allocs bounds what reading the bomb up to the bound allocates, freed
	// or not, in multiples of the bound: about 2 for maps, whose tables
	// double as they grow, and 5 for one large slice, which append grows a
	// quarter at a time, so that the arrays it leaves behind add up to 4
	// times the last.
	allocs float64
}

// pqTargetText is a record of a targets table in Parquet, with text items.
type pqTargetText struct {
	SampleID string `parquet:"sample_id"`
	Item     string `parquet:"item"`
}

// heldSmall are the files that go with a bomb: small, and read whole.
var heldSmall = map[string][]byte{
	"trec.run":        []byte("q0 Q0 d0 1 1 t\n"),
	"trec.qrels":      []byte("q0 0 d0 1\n"),
	"predictions.csv": []byte("sample_id,item,rank\nu0,i0,1\n"),
	"targets.csv":     []byte("sample_id,item\nu0,i0\n"),
}

// appendLine appends to b a line of parts, strings and ints, one after
// another.
func appendLine(b []byte, parts ...any) []byte {
	for i, p := range parts {
		switch p := p.(type) {
		case int:
			b = strconv.AppendInt(b, int64(p), 10)
		case string:
			b = append(b, p...)
		}
		if i == len(parts)-1 {
			b = append(b, '\n')
		}
	}
	return b
}

// heldBombs hold memory in each way the readers do: the qrels; a run read
// whole, its query IDs, and one query of a grouped run; a targets table,
// in CSV and in Parquet; and the predictions' IDs, and one sample's
// predictions.
var heldBombs = []heldBomb{
	{
		name: "trec.qrels", file: "trec.qrels.gz", perLine: 90, allocs: 2.5,
		line: func(b []byte, i int) []byte { return appendLine(b, "q", i/100, " 0 d", i, " 1") },
		want: "the targets held in memory pass %s; verdict holds a qrels file whole, as trec_eval does: split the evaluation into parts",
	},
	{
		name: "trec.run", file: "ungrouped.run.gz", perLine: 35, allocs: 6,
		line: func(b []byte, i int) []byte { return appendLine(b, "q", i%2, " Q0 d", i, " ", i/2+1, " 1 t") },
		want: "the run held in memory passes %s with the qrels; its queries are not grouped, so verdict holds it whole: sort the run by query (sort -k1,1 -s) so that it streams",
	},
	{
		name: "trec.run", file: "queries.run.gz", perLine: 60, allocs: 2.5,
		line: func(b []byte, i int) []byte { return appendLine(b, "q", i, " Q0 d0 1 1 t") },
		want: "the run's query IDs held in memory pass %s with the qrels; verdict keeps them to tell whether the run is grouped by query: split the evaluation into parts",
	},
	{
		name: "trec.run", file: "query.run.gz", perLine: 35, allocs: 6,
		line: func(b []byte, i int) []byte { return appendLine(b, "q0 Q0 d", i, " ", i+1, " 1 t") },
		want: "the query's documents held in memory pass %s with the qrels; verdict holds a query's documents together to rank them: keep only each query's top documents",
	},
	{
		name: "targets.csv", file: "targets.csv.gz", head: "sample_id,item\n", perLine: 105, allocs: 3,
		line: func(b []byte, i int) []byte { return appendLine(b, "u", i/10, ",i", i) },
		want: "the targets held in memory pass %s; verdict holds a targets table whole: split the evaluation into parts",
	},
	{
		name: "targets.csv", file: "targets.parquet", perLine: 105, allocs: 3,
		row:  func(i int) pqTargetText { return pqTargetText{"u" + strconv.Itoa(i/10), "i" + strconv.Itoa(i)} },
		want: "the targets held in memory pass %s; verdict holds a targets table whole: split the evaluation into parts",
	},
	{
		name: "predictions.csv", file: "samples.csv.gz", head: "sample_id,item,rank\n", perLine: 145, allocs: 2.5,
		line: func(b []byte, i int) []byte { return appendLine(b, "u", i, ",i", i, ",1") },
		want: "the predictions' sample and item IDs held in memory pass %s with the targets; verdict keeps them to check that each sample's predictions are together and to match items: split the evaluation into parts",
	},
	{
		name: "predictions.csv", file: "sample.csv.gz", head: "sample_id,item,rank\n", perLine: 115, allocs: 3.5,
		line: func(b []byte, i int) []byte { return appendLine(b, "u0,i", i, ",", i+1) },
		want: "the sample's predictions held in memory pass %s with the targets; verdict holds a sample's predictions together to rank them: keep only each sample's top predictions",
	},
}

// write writes the bomb with n lines or records to a fresh temporary
// directory, gzipped unless it is Parquet, and returns its path.
func (bomb heldBomb) write(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), bomb.file)
	if bomb.row != nil {
		f, err := os.Create(path)
		require.NoError(t, err)
		w := parquet.NewGenericWriter[pqTargetText](f)
		rows := make([]pqTargetText, 0, 4096)
		for i := range n {
			rows = append(rows, bomb.row(i))
			if len(rows) == cap(rows) || i == n-1 {
				_, err = w.Write(rows)
				require.NoError(t, err)
				rows = rows[:0]
			}
		}
		require.NoError(t, w.Close())
		require.NoError(t, f.Close())
		return path
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	require.NoError(t, err)
	bw := bufio.NewWriterSize(zw, 1<<16)
	_, err = bw.WriteString(bomb.head)
	require.NoError(t, err)
	var b []byte
	for i := range n {
		b = bomb.line(b[:0], i)
		_, err = bw.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, bw.Flush())
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return path
}

// read opens the bomb at path with the small files of dir and reads the
// rankings to the end or the first error, checking the rows unless lean,
// which allocates nothing beyond what the reader does.
func (bomb heldBomb) read(t *testing.T, dir, path string, opts evaluate.RankingOptions, lean bool) error {
	t.Helper()
	files := func(name string) string {
		if name == bomb.name {
			return path
		}
		return filepath.Join(dir, name)
	}
	var (
		r   evaluate.Rankings
		err error
	)
	if strings.HasPrefix(bomb.name, "trec.") {
		r, err = evaluate.OpenTRECRankings(files("trec.run"), files("trec.qrels"), opts)
	} else {
		r, err = evaluate.OpenTableRankings(files("predictions.csv"), files("targets.csv"), opts)
	}
	if err != nil {
		return err
	}
	defer r.Close()
	if !lean {
		_, _, err = readRankings(t, r)
		return err
	}
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// heldRefused checks that err refuses the bomb at path, held past the
// bound, and returns the line or record where it did.
func (bomb heldBomb) heldRefused(t *testing.T, path string, bound int, err error) int {
	t.Helper()
	require.ErrorIs(t, err, evaluate.ErrBadInput)
	boundText := fmt.Sprintf("%d MiB", bound>>20)
	pattern := "^" + regexp.QuoteMeta(path) + `: (?:line|record) (\d+)(?: \([^)]*\))?: ` + regexp.QuoteMeta(fmt.Sprintf(bomb.want, boundText)) + "$"
	m := regexp.MustCompile(pattern).FindStringSubmatch(err.Error())
	require.NotNil(t, m, "error %q does not match %q", err, pattern)
	at, _ := strconv.Atoi(m[1])
	lines := bound / bomb.perLine
	require.True(t, at >= lines/2 && at <= 2*lines, "refused at %d, but a line holds about %d bytes of the %d: about %d lines", at, bomb.perLine, bound, lines)
	return at
}

// The inputs that the readers hold in memory, by design, are refused when
// what they hold passes RankingOptions.MaxHeldBytes, at the line or record
// where it did, with what to do; and read as before below it. The qrels
// and targets tables are bounded as much when FingerprintTargets reads
// them.
func TestHeldMemoryRefused(t *testing.T) {
	const bound = 1 << 20
	dir := writeFiles(t, heldSmall)
	for _, bomb := range heldBombs {
		t.Run(bomb.file, func(t *testing.T) {
			// A tenth of the lines read.
			small := bomb.write(t, bound/bomb.perLine/10)
			require.NoError(t, bomb.read(t, dir, small, evaluate.RankingOptions{Width: 100, MaxHeldBytes: bound}, false))

			path := bomb.write(t, 4*bound/bomb.perLine)
			err := bomb.read(t, dir, path, evaluate.RankingOptions{Width: 100, MaxHeldBytes: bound}, false)
			at := bomb.heldRefused(t, path, bound, err)
			t.Logf("refused at %d: %v", at, err)

			if bomb.name == "trec.qrels" || bomb.name == "targets.csv" {
				format := "table"
				if bomb.name == "trec.qrels" {
					format = "qrels"
				}
				defer evaluate.SetDefaultMaxHeldBytes(bound)()
				_, _, err := evaluate.FingerprintTargets(path, "", format)
				require.Equal(t, at, bomb.heldRefused(t, path, bound, err), "FingerprintTargets refuses at the same line")
			}
		})
	}
}

// A gzip bomb whose lines would hold twice the default bound is
// refused having allocated, freed or not, a small multiple of the bound,
// whatever the bomb's size: what the readers hold follows their estimate.
// The default is set to 64 MiB, for speed, in place of 2 GiB.
func TestHeldMemoryBombs(t *testing.T) {
	const bound = 64 << 20
	defer evaluate.SetDefaultMaxHeldBytes(bound)()
	dir := writeFiles(t, heldSmall)
	for _, bomb := range heldBombs {
		t.Run(bomb.file, func(t *testing.T) {
			path := bomb.write(t, 2*bound/bomb.perLine)
			var err error
			alloc := inputtest.Allocated(func() {
				err = bomb.read(t, dir, path, evaluate.RankingOptions{Width: 100}, true)
			})
			bomb.heldRefused(t, path, bound, err)
			t.Logf("%s: allocated %.1f MiB", bomb.file, float64(alloc)/(1<<20))
			require.Less(t, float64(alloc), bomb.allocs*bound, "bytes allocated")
		})
	}
}

package scores_test

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

// maxAlloc bounds what reading a hostile file may allocate, freed or not:
// the readers hold a line of at most 4 MiB, a few times over in buffers.
const maxAlloc = 48 << 20

// readScoresOrLabels reads the file at path to its end, as scores or, when
// its name starts with "labels", as labels, and returns the first error.
func readScoresOrLabels(t *testing.T, path string) error {
	if strings.HasPrefix(filepath.Base(path), "labels") {
		_, err := scores.ReadLabels(path)
		return err
	}
	return readAll(t, path, "")
}

// refusedWithin reads path, requires the error want (after the path and a
// colon) wrapping ErrBadInput, and requires that reading allocated less
// than maxAlloc.
func refusedWithin(t *testing.T, path, want string) {
	t.Helper()
	var err error
	alloc := inputtest.Allocated(func() { err = readScoresOrLabels(t, path) })
	require.ErrorIs(t, err, scores.ErrBadInput)
	require.EqualError(t, err, path+": "+want)
	require.Less(t, alloc, uint64(maxAlloc), "bytes allocated")
	t.Logf("%s: allocated %.1f MiB", filepath.Base(path), float64(alloc)/(1<<20))
}

// A gzip stream that expands to one line of gigabytes is refused at that
// line once 4 MiB of it are read, in every text format. (It used to be read
// whole: "fatal error: out of memory".) The tests measure memory, so they
// run one at a time, not in parallel.
func TestHugeLineRefused(t *testing.T) {
	const gib = 5 << 10 // MiB of expanded text: 5 GiB
	tooLong := "the line is longer than 4 MiB, the most a line may hold"
	tests := []struct {
		name   string
		prefix string
		fill   string
		want   string
	}{
		{
			name:   "scores.csv.gz",
			prefix: "sample_id,a\nu1,0.5\nu2,",
			fill:   "9",
			want:   "line 3: " + tooLong,
		},
		{
			name:   "scores.tsv.gz",
			prefix: "sample_id\ta\nu1\t0.5\n",
			fill:   "u",
			want:   "line 3: " + tooLong,
		},
		{
			name:   "a quote left open.csv.gz",
			prefix: "sample_id,a\nu1,0.5\n\"u2\n",
			fill:   "\n",
			want:   "line 3: the record from this line on is longer than 4 MiB, the most a record may hold; is a quote left open?",
		},
		{
			name:   "scores.jsonl.gz",
			prefix: `{"sample_id": "u1", "a": 0.5}` + "\n" + `{"sample_id": "`,
			fill:   "u",
			want:   "line 2: " + tooLong,
		},
		{
			name:   "the first line.jsonl.gz",
			prefix: `{"sample_id": "`,
			fill:   "u",
			want:   "line 1: " + tooLong,
		},
		{
			name:   "labels.csv.gz",
			prefix: "sample_id,label\nu1,1\n",
			fill:   "u",
			want:   "line 3: " + tooLong,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := inputtest.GzipBomb(t, tt.name, []byte(tt.prefix), tt.fill, gib, []byte(",1\n"))
			refusedWithin(t, path, tt.want)
		})
	}
}

// A plain header line of 64 MiB is refused once 4 MiB of it are read. (A
// 100 MB one used to take 5 GB before any check.)
func TestHugeHeaderRefused(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		fill   string
		want   string
	}{
		{name: "one long name.csv", prefix: "sample_id,", fill: "m", want: "line 1: the line is longer than 4 MiB, the most a line may hold"},
		{name: "one long name.tsv", prefix: "sample_id\t", fill: "m", want: "line 1: the line is longer than 4 MiB, the most a line may hold"},
		{name: "one long key.jsonl", prefix: `{"sample_id": "u1", "`, fill: "m", want: "line 1: the line is longer than 4 MiB, the most a line may hold"},
		{name: "one long name, quoted.csv", prefix: "sample_id,\"", fill: "m", want: "line 1: the line is longer than 4 MiB, the most a line may hold"},
		{name: "labels.csv", prefix: "sample_id,label,", fill: "m", want: "line 1: the line is longer than 4 MiB, the most a line may hold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name)
			f, err := os.Create(path)
			require.NoError(t, err)
			_, err = f.WriteString(tt.prefix)
			require.NoError(t, err)
			mib := strings.Repeat(tt.fill, 1<<20)
			for range 64 {
				_, err = f.WriteString(mib)
				require.NoError(t, err)
			}
			_, err = f.WriteString("\nu1,1\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
			refusedWithin(t, path, tt.want)
		})
	}
}

// A header of ten million columns is refused at its 1,003rd column, as it
// is read, rather than after it was parsed whole (2.4 GB); a file of 1,001
// metrics is refused with the count, in every format.
func TestTooManyMetricsRefusedEarly(t *testing.T) {
	const columns = 10_000_000
	tooMany := "line 1: the header has more than 1002 columns; a scores file has sample_id, draw and at most 1000 metrics"
	bombs := []struct {
		name   string
		prefix string
		fill   string
		mib    int // of fill; 0 for ten million columns
		want   string
	}{
		{name: "scores.csv.gz", prefix: "sample_id", fill: ",m", want: tooMany},
		{name: "scores.tsv.gz", prefix: "sample_id", fill: "\tm", want: tooMany},
		{name: "quoted names.csv.gz", prefix: "sample_id", fill: `,"m"`, want: tooMany},
		{name: "labels.csv.gz", prefix: "sample_id,label", fill: ",m", want: "line 1: the header has more than 1024 columns"},
		{
			// 10,000,000 keys are far more than a line holds.
			name: "scores.jsonl.gz", prefix: `{"sample_id": "u1"`, fill: `,"m":1`,
			want: "line 1: the line is longer than 4 MiB, the most a line may hold",
		},
		{
			// 524,288 keys fit in a line, and are counted as they are
			// scanned.
			name: "half a million keys.jsonl.gz", prefix: `{"sample_id": "u1"`, fill: `,"m":1`, mib: 3,
			want: "line 1: the object has more than 1002 keys; a scores file has sample_id, draw and at most 1000 metrics",
		},
	}
	for _, tt := range bombs {
		t.Run(tt.name, func(t *testing.T) {
			mib := tt.mib
			if mib == 0 {
				mib = columns * len(tt.fill) >> 20
			}
			path := inputtest.GzipBomb(t, tt.name, []byte(tt.prefix), tt.fill, mib, []byte("}\n"))
			refusedWithin(t, path, tt.want)
		})
	}

	// 1,001 metrics: a header within the columns' bound, refused by count.
	names := make([]string, 1001)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	var members []inputtest.Member
	members = append(members, inputtest.Array("sample_id", inputtest.NPY(1, "'<i8'", "(1,)", inputtest.Int64s(1))))
	for _, n := range names {
		members = append(members, inputtest.Array(n, inputtest.NPY(1, "'<f8'", "(1,)", inputtest.Float64s(0.5))))
	}
	group := parquet.Group{"sample_id": parquet.String()}
	for _, n := range names {
		group[n] = parquet.Leaf(parquet.DoubleType)
	}
	pq := filepath.Join(t.TempDir(), "scores.parquet")
	f, err := os.Create(pq)
	require.NoError(t, err)
	w := parquet.NewWriter(f, parquet.NewSchema("scores", group))
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())

	tests := []struct {
		name string
		path string
		want string
	}{
		{
			name: "csv",
			path: inputtest.WriteFile(t, "scores.csv", []byte("sample_id,"+strings.Join(names, ",")+"\n")),
			want: "line 1: 1001 metric columns; at most 1000 are supported",
		},
		{
			name: "jsonl",
			path: inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": "u1", "`+strings.Join(names, `": 1, "`)+`": 1}`+"\n")),
			want: "line 1: 1001 metric keys; at most 1000 are supported",
		},
		{
			name: "npz",
			path: inputtest.WriteNPZ(t, "scores.npz", 0, members...),
			want: "1001 metric arrays; at most 1000 are supported",
		},
		{
			name: "npz with more members than any scores file has",
			path: inputtest.WriteNPZ(t, "scores.npz", 0, append(members, inputtest.Array("draw", nil))...),
			want: "the archive holds 1003 members; a scores file has sample_id, draw and at most 1000 metrics",
		},
		{name: "parquet", path: pq, want: "1001 metric columns; at most 1000 are supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refusedWithin(t, tt.path, tt.want)
		})
	}
}

// A metric name longer than 1,024 bytes is refused where it is named: a
// header's column or key, or a long form's record.
func TestLongMetricNameRefused(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("m", 1025)
	tests := []struct {
		name    string
		file    string
		content string
		want    string
	}{
		{name: "csv header", file: "scores.csv", content: "sample_id,a," + long + "\nu1,1,2\n", want: "line 1: column 3: the metric name is 1025 bytes long; at most 1024 are allowed"},
		{name: "jsonl key", file: "scores.jsonl", content: `{"sample_id": "u1", "` + long + `": 1}` + "\n", want: "line 1: key 2: the metric name is 1025 bytes long; at most 1024 are allowed"},
		{
			name: "csv long form", file: "scores.csv", content: "sample_id,metric,value\nu1,a,1\nu1," + long + ",2\n",
			want: `line 3 (sample "u1"), column "metric": the metric name is 1025 bytes long; at most 1024 are allowed`,
		},
		{
			name: "jsonl long form", file: "scores.jsonl", content: `{"sample_id": "u1", "metric": "` + long + `", "value": 1}` + "\n",
			want: `line 1 (sample "u1"), key "metric": the metric name is 1025 bytes long; at most 1024 are allowed`,
		},
		{name: "at the limit", file: "scores.csv", content: "sample_id," + long[1:] + "\nu1,1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			err := readAll(t, path, "")
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, path+": "+tt.want)
		})
	}
}

// An .npz member's header may claim elements or a shape of any size;
// nothing is allocated by the claim, and the array is refused with its
// name.
func TestNPYHugeItemRefused(t *testing.T) {
	ids := inputtest.Array("sample_id", inputtest.NPY(1, "'<i8'", "(1,)", inputtest.Int64s(1)))
	value := inputtest.Array("value", inputtest.NPY(1, "'<f8'", "(1,)", inputtest.Float64s(0.5)))
	tests := []struct {
		name   string
		member inputtest.Member
		others []inputtest.Member
		want   string
	}{
		{
			name:   "sample IDs of 200 MB each",
			member: inputtest.Array("sample_id", inputtest.NPY(1, "'<U50000000'", "(1,)", nil)),
			others: []inputtest.Member{value},
			want:   `array "sample_id": has dtype <U50000000, strings longer than the 65536 bytes supported`,
		},
		{
			name:   "metric names of 2 GB each",
			member: inputtest.Array("metric", inputtest.NPY(1, "'|S2000000000'", "(1,)", nil)),
			others: []inputtest.Member{ids, value},
			want:   `array "metric": has dtype |S2000000000, strings longer than the 65536 bytes supported`,
		},
		{
			name:   "a shape whose bytes overflow",
			member: inputtest.Array("ndcg", inputtest.NPY(1, "'<f8'", "(2305843009213693952,)", nil)),
			others: []inputtest.Member{ids},
			want:   `array "ndcg": has shape (2305843009213693952,), too large to be real; the header is corrupt`,
		},
		{
			name:   "a shape the member does not hold",
			member: inputtest.Array("ndcg", inputtest.NPY(1, "'<f8'", "(100000000,)", inputtest.Float64s(0.5))),
			others: []inputtest.Member{ids},
			want:   `array "ndcg": is truncated: it holds 8 bytes of data, less than the 800000000 of its shape (100000000,)`,
		},
		{
			name: "members that declare more than they hold",
			member: inputtest.Member{
				Name: "sample_id", Data: inputtest.NPY(1, "'<U16384'", "(100000,)", inputtest.Strings(16384, "u1")),
				Declare: 128 + 100_000*65536,
			},
			others: []inputtest.Member{{
				Name: "ndcg", Data: inputtest.NPY(1, "'<f8'", "(100000,)", inputtest.Float64s(0.5)), Declare: 128 + 800_000,
			}},
			want: `array "sample_id": the array ends after 1 of its 100000 values`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := inputtest.WriteNPZ(t, "scores.npz", zip.Deflate, append([]inputtest.Member{tt.member}, tt.others...)...)
			refusedWithin(t, path, tt.want)
		})
	}
}

// A sample ID longer than the store's 1,024 bytes is refused by the reader,
// which knows the file and line (the store's message for labels named
// neither), and the message quotes only its start.
func TestLongSampleIDRefused(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("u", 2000)
	short := `"` + strings.Repeat("u", 64) + `"... (2000 bytes)`
	tests := []struct {
		name    string
		file    string
		content string
		want    string
	}{
		{name: "csv", file: "scores.csv", content: "sample_id,a\nu1,1\n" + long + ",1\n", want: "line 3 (sample " + short + `), column "sample_id": the sample ID is 2000 bytes long; at most 1024 are allowed`},
		{name: "jsonl", file: "scores.jsonl", content: `{"sample_id": "` + long + `", "a": 1}` + "\n", want: "line 1 (sample " + short + `), key "sample_id": the sample ID is 2000 bytes long; at most 1024 are allowed`},
		{name: "labels", file: "labels.csv", content: "sample_id,label\n" + long + ",1\n", want: "line 2 (sample " + short + `), column "sample_id": the sample ID is 2000 bytes long; at most 1024 are allowed`},
		{name: "at the limit", file: "scores.csv", content: "sample_id,a\n" + long[:1024] + ",1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			err := readScoresOrLabels(t, path)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, path+": "+tt.want)
		})
	}
}

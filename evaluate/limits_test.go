package evaluate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

package evaluate_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// Sample (query) IDs that are not UTF-8 are refused by the ranking readers,
// with the file and the line or row, rather than by PostgreSQL, whose
// message names neither.
func TestNonUTF8Refused(t *testing.T) {
	t.Parallel()
	const (
		notUTF8 = "is not valid UTF-8; convert the file to UTF-8 (was it written as Latin-1 or Windows-1252?)"
		latin1  = "caf\xe9" // "café" in Latin-1
	)
	tests := []struct {
		name  string
		files map[string][]byte
		open  func(path func(string) string) (evaluate.Rankings, error)
		bad   string // the file refused
		want  string // after its path
	}{
		{
			name: "trec run",
			files: map[string][]byte{
				"trec.run":   []byte("q1 Q0 d1 1 0.5 tag\n" + latin1 + " Q0 d1 1 0.5 tag\n"),
				"trec.qrels": []byte("q1 0 d1 1\n"),
			},
			open: func(path func(string) string) (evaluate.Rankings, error) {
				return evaluate.OpenTRECRankings(path("trec.run"), path("trec.qrels"), evaluate.RankingOptions{})
			},
			bad:  "trec.run",
			want: `line 2 (row 1, query "caf\xe9"): the query ID ` + notUTF8,
		},
		{
			name: "trec qrels",
			files: map[string][]byte{
				"trec.run":   []byte("q1 Q0 d1 1 0.5 tag\n"),
				"trec.qrels": []byte("q1 0 d1 1\n" + latin1 + " 0 d1 1\n"),
			},
			open: func(path func(string) string) (evaluate.Rankings, error) {
				return evaluate.OpenTRECRankings(path("trec.run"), path("trec.qrels"), evaluate.RankingOptions{})
			},
			bad:  "trec.qrels",
			want: `line 2 (query "caf\xe9"): the query ID ` + notUTF8,
		},
		{
			name: "table predictions",
			files: map[string][]byte{
				"predictions.csv": []byte("sample_id,item,rank\nu1,i1,1\n" + latin1 + ",i1,1\n"),
				"targets.csv":     []byte("sample_id,item\nu1,i1\n"),
			},
			open: func(path func(string) string) (evaluate.Rankings, error) {
				return evaluate.OpenTableRankings(path("predictions.csv"), path("targets.csv"), evaluate.RankingOptions{})
			},
			bad:  "predictions.csv",
			want: `line 3 (row 1, sample "caf\xe9"): the sample ID ` + notUTF8,
		},
		{
			name: "table targets",
			files: map[string][]byte{
				"predictions.csv": []byte("sample_id,item,rank\nu1,i1,1\n"),
				"targets.csv":     []byte("sample_id,item\n" + latin1 + ",i1\n"),
			},
			open: func(path func(string) string) (evaluate.Rankings, error) {
				return evaluate.OpenTableRankings(path("predictions.csv"), path("targets.csv"), evaluate.RankingOptions{})
			},
			bad:  "targets.csv",
			want: `line 2 (sample "caf\xe9"): the sample ID ` + notUTF8,
		},
		{
			name: "numpy sample IDs",
			files: func() map[string][]byte {
				files := numpyFiles()
				files["ids.npy"] = npyArr{"'|S4'", "(6,)", []byte("u0\x00\x00u1\x00\x00u2\x00\x00" + latin1 + "u4\x00\x00u5\x00\x00")}.file()
				return files
			}(),
			open: func(path func(string) string) (evaluate.Rankings, error) {
				return evaluate.OpenNumPyRankings(path("items.npy"), path("scores.npy"), path("targets.npz"), path("ids.npy"), evaluate.RankingOptions{})
			},
			bad:  "ids.npy",
			want: `row 3 (sample "caf\xe9"): the sample ID ` + notUTF8,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, tt.files)
			path := func(name string) string { return filepath.Join(dir, name) }
			r, err := tt.open(path)
			if err == nil {
				defer r.Close()
				_, _, err = readRankings(t, r)
			}
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, path(tt.bad)+": "+tt.want)
		})
	}
}

// A TREC file or a table named .gz whose bytes are not gzip is refused
// rather than read as plain text; a gzipped one without the suffix is
// still read, by its magic bytes.
func TestGzNameWithoutGzipRefused(t *testing.T) {
	t.Parallel()
	plain := map[string][]byte{
		"trec.run":        []byte("q1 Q0 d1 1 0.5 tag\n"),
		"trec.qrels":      []byte("q1 0 d1 1\n"),
		"predictions.csv": []byte("sample_id,item,rank\nu1,i1,1\n"),
		"targets.csv":     []byte("sample_id,item\nu1,i1\n"),
	}
	open := func(path func(string) string, table bool) error {
		var (
			r   evaluate.Rankings
			err error
		)
		if table {
			r, err = evaluate.OpenTableRankings(path("predictions.csv"), path("targets.csv"), evaluate.RankingOptions{})
		} else {
			r, err = evaluate.OpenTRECRankings(path("trec.run"), path("trec.qrels"), evaluate.RankingOptions{})
		}
		if err != nil {
			return err
		}
		defer r.Close()
		_, _, err = readRankings(t, r)
		return err
	}
	for name := range plain {
		table := filepath.Ext(name) == ".csv"
		t.Run(name+".gz, not gzip", func(t *testing.T) {
			t.Parallel()
			files := map[string][]byte{}
			for n, b := range plain {
				if n == name {
					n += ".gz"
				}
				files[n] = b
			}
			dir := writeFiles(t, files)
			path := func(n string) string {
				if n == name {
					n += ".gz"
				}
				return filepath.Join(dir, n)
			}
			err := open(path, table)
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			require.EqualError(t, err, path(name)+": not gzip, though its name says so")
		})
		t.Run(name+", gzipped", func(t *testing.T) {
			t.Parallel()
			files := map[string][]byte{}
			for n, b := range plain {
				if n == name {
					b = inputtest.Gzip(t, b)
				}
				files[n] = b
			}
			dir := writeFiles(t, files)
			require.NoError(t, open(func(n string) string { return filepath.Join(dir, n) }, table))
		})
	}
}

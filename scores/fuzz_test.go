package scores_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

// The fuzz targets feed the readers arbitrary files. Whatever a file holds,
// a reader must not panic, and an error must be about the file's content
// (wrapping ErrBadInput) or a failure to read it (an I/O error). Run one
// with
//
//	go test ./scores -run '^$' -fuzz FuzzCSVScores -fuzztime 60s
//
// and commit what it finds under testdata/fuzz/FuzzCSVScores, which plain
// go test replays.

// fuzzFile writes content to a file of the given name in a fresh
// directory and returns its path.
func fuzzFile(t *testing.T, name string, content []byte) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// requireBadInput fails the test for an error that is neither about the
// file's content nor a failure to read it.
func requireBadInput(t *testing.T, err error) {
	t.Helper()
	var pathErr *fs.PathError
	if err != nil && !errors.Is(err, scores.ErrBadInput) && !errors.As(err, &pathErr) {
		t.Fatalf("an error that does not wrap ErrBadInput: %v", err)
	}
}

// fuzzRead reads a scores file to its end, as scores or, when it is
// labels.csv, as labels, and checks the error, and what the readers hand
// out on the way: at most 1,000 metrics, one value for each, and no empty
// metric name.
func fuzzRead(t *testing.T, path string) {
	if filepath.Base(path) == "labels.csv" {
		_, err := scores.ReadLabels(path)
		requireBadInput(t, err)
		return
	}
	s, err := scores.OpenScores(path, "")
	if err != nil {
		requireBadInput(t, err)
		return
	}
	defer s.Close()
	if w := s.Wide(); w != nil {
		if len(w.Metrics()) == 0 || len(w.Metrics()) > 1000 {
			t.Fatalf("%d metrics", len(w.Metrics()))
		}
		for w.Next() {
			if len(w.Values()) != len(w.Metrics()) {
				t.Fatalf("%d values for %d metrics", len(w.Values()), len(w.Metrics()))
			}
		}
		requireBadInput(t, w.Err())
		return
	}
	l := s.Long()
	for l.Next() {
		if l.Metric() == "" {
			t.Fatalf("%s: an empty metric name", l.Where(l.Record()))
		}
	}
	requireBadInput(t, l.Err())
}

func FuzzCSVScores(f *testing.F) {
	for _, seed := range []string{
		"sample_id,ndcg@10,recall@10\nu1,0.5,1\nu2,0,0.25\n",
		"ndcg@10,draw,sample_id\n0.5,0,u1\n0.75,1,u1\n0.125,32767,u2\n",
		"\ufeffsample_id, \"ndcg@10\"\r\n\"u,1\", 0.5 \r\n\r\n\"say \"\"hi\"\"\",1e-3\r\n\"multi\nline\",2\n",
		"sample_id,a,b,c,d\nu1,NaN,nan,inf,-Infinity\nu2,1.5E+10,+3,-0,.5\n",
		"sample_id,metric,value\nu1,ndcg@10,0.5\nu1,recall@10,1\n",
		"sample_id,draw,metric,value\nu1,0,a,1\nu1,1,a,0.5\n",
		",a\n0,1\n",
		"sample_id,a\nu1,1_0\n",
		"sample_id,a\nu1,\"1\nu2,2\n",
	} {
		f.Add([]byte(seed), false)
	}
	f.Add([]byte("sample_id\ta\nu1\t0.5\n"), true)
	f.Add(inputtest.Gzip(f, []byte("sample_id,a\nu1,0.5\n")), false)
	f.Fuzz(func(t *testing.T, content []byte, tsv bool) {
		name := "scores.csv"
		if tsv {
			name = "scores.tsv"
		}
		fuzzRead(t, fuzzFile(t, name, content))
	})
}

func FuzzJSONLScores(f *testing.F) {
	for _, seed := range []string{
		`{"sample_id": "u1", "ndcg@10": 0.5, "recall@10": 1}` + "\n" + `{"recall@10": 0.25, "sample_id": "u2", "ndcg@10": 0}`,
		`{"sample_id": 7, "draw": 0, "a": NaN}` + "\n" + `{"sample_id": 7, "draw": 1, "a": -Infinity}` + "\n",
		`{"sample_id": "u\"1\u00fc", "metric": "nd\u0063g", "value": 1e-3}` + "\r\n\n",
		`{"sample_id": "u1", "a": {"x": [1, "]"]}}`,
		`{"sample_id": "caf\udce9", "a": 1_0}`,
		"\ufeff" + `{"sample_id": "u1", "a": 0.5}`,
	} {
		f.Add([]byte(seed))
	}
	f.Add(inputtest.Gzip(f, []byte(`{"sample_id": "u1", "a": 0.5}`)))
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzRead(t, fuzzFile(t, "scores.jsonl", content))
	})
}

func FuzzParquetScores(f *testing.F) {
	dir := f.TempDir()
	for name, write := range map[string]func(path string){
		"wide":     func(p string) { inputtest.WriteParquetAt(f, p, []pqWide{{"u1", 0.5, 1, 3}, {"u2", 0.25, 0, 1}}) },
		"draw":     func(p string) { inputtest.WriteParquetAt(f, p, []pqWideDraw{{0, 7, 1}, {1, 7, 2}}) },
		"unsigned": func(p string) { inputtest.WriteParquetAt(f, p, []pqUnsignedIDs{{1, 0, 0.5}}) },
		"pandas":   func(p string) { inputtest.WriteParquetAt(f, p, []pqPandas{{[]byte("u1"), 0.5, 0}}) },
		"long":     func(p string) { inputtest.WriteParquetAt(f, p, []pqLong{{"u1", 0, "a", 0.5}, {"u1", 0, "b", 1}}) },
		"optional": func(p string) {
			id, d, v := "u1", int32(0), 0.5
			inputtest.WriteParquetAt(f, p, []pqOptional{{&id, &d, &v}, {nil, nil, nil}})
		},
	} {
		path := filepath.Join(dir, name+".parquet")
		write(path)
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzRead(t, fuzzFile(t, "scores.parquet", content))
	})
}

func FuzzNPZScores(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "*.npz"))
	if err != nil || len(names) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(inputtest.Zip(0,
		inputtest.Array("sample_id", inputtest.NPY(1, "'|S2'", "(2,)", []byte("u1u2"))),
		inputtest.Array("metric", inputtest.NPY(1, "'<U1'", "(2,)", inputtest.Strings(1, "a", "b"))),
		inputtest.Array("value", inputtest.NPY(2, "'>f4'", "(2,)", inputtest.BigEndian32s(0, 1))),
		inputtest.Array("draw", inputtest.NPY(1, "'|u1'", "(2,)", []byte{0, 1})),
	))
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzRead(t, fuzzFile(t, "scores.npz", content))
	})
}

func FuzzLabels(f *testing.F) {
	for _, seed := range []string{
		"sample_id,label\nu1,1\nu2,0\n",
		"label,x,sample_id\n1.0,a, u1 \n0e0,b,u2\n",
		"sample_id,label\nu1,2\n",
		"sample_id,label\n\"u\n1\",1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzRead(t, fuzzFile(t, "labels.csv", content))
	})
}

package columns_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/verdict-ml/verdict/internal/columns"
)

// FuzzRead feeds arbitrary bytes to the reader of `verdict stats` inputs,
// as JSON, CSV and TSV: it must never panic, and every error it or the
// column accessors return must be about the input.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		`{"left": [0.5, 1], "right": [0.25, 0.5]}`,
		`{"left": {"a": 1, "b": 0.5}, "right": {"a": 0.8}}`,
		`{"scores": [[1, 2], [3, 4]], "names": ["a", "b"]}`,
		`{"b": 3, "c": 4}`,
		"id,left,right\na,0.5,0.25\nb,1,\n",
		"left\tright\n1\t2\n",
		"\xef\xbb\xbfleft,right\n1,2\n",
		"",
	} {
		for _, format := range []string{"", "json", "csv", "tsv"} {
			f.Add([]byte(seed), format)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		in, err := columns.Read(bytes.NewReader(data), "fuzz", format)
		if err != nil {
			if !errors.Is(err, columns.ErrBadInput) {
				t.Fatalf("error not about the input: %v", err)
			}
			return
		}
		check := func(err error) {
			if err != nil && !errors.Is(err, columns.ErrBadInput) {
				t.Fatalf("error not about the input: %v", err)
			}
		}
		_, err = in.Floats("left", false)
		check(err)
		_, _, err = in.Pair()
		check(err)
		_, _, _, err = in.DiffsOrPair()
		check(err)
		_, err = in.Strings("units")
		check(err)
		_, _, err = in.Matrix("scores")
		check(err)
		_, err = in.Keyed("left")
		check(err)
		_, err = in.Counts("b", "c")
		check(err)
	})
}

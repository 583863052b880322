package columns

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seeds are inputs for the fuzz targets: the shapes verdict stats takes,
// and the corners of CSV syntax.
var seeds = []string{
	`{"left": [0.5, 1], "right": [0.25, 0.5]}`,
	`{"left": {"a": 1, "b": 0.5}, "right": {"a": 0.8}}`,
	`{"scores": [[1, 2], [3, 4]], "names": ["a", "b"]}`,
	`{"b": 3, "c": 4}`,
	"id,left,right\na,0.5,0.25\nb,1,\n",
	"id,left,right\na,0.5,0.25\nb, ,x\nc,\"\",1\n",
	"label,left,right\n0,0.1,0.2\n1, 1e3 ,NaN\n\n0,-Inf,+0x1p-2\r\n",
	"units,left,right\nu1,1,2\nu1,3,4\n7,5,6\n",
	"left\tright\n1\t2\n1\t\t2\n",
	"a,b\n\"1\",\"x\"\"y\"\n\"2\n3\",4\n",
	"a,b\n1,\"2\n",
	"a,b\n1,2\"\n",
	"a,b\n1,\"2\"x\n",
	"a,b\n1\n",
	"\xef\xbb\xbfleft,right\n1,2\n",
	"0.01\n0.2\n\n3e-4\n",
	"0.01\nx\n \n",
	"b,c\n3,4\n",
	" \u00a0\u2028left\r\n1\r",
	"",
}

// FuzzSameAsBefore holds Read and every accessor to the reader before it
// parsed as it read (oracle_test.go): the same values, nil or not, and
// the same messages.
func FuzzSameAsBefore(f *testing.F) {
	for _, seed := range seeds {
		for _, format := range []string{"", "json", "csv", "tsv"} {
			f.Add([]byte(seed), format)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		old, errOld := oldRead(bytes.NewReader(data), "in", format)
		in, err := Read(bytes.NewReader(data), "in", format)
		require.Equal(t, fmt.Sprint(errOld), fmt.Sprint(err))
		if err != nil {
			require.ErrorIs(t, err, ErrBadInput)
			return
		}
		for _, name := range []string{"left", "right", "label", "diffs", "id", "units", "", "b"} {
			v, err := in.Floats(name, false)
			ov, oerr := old.Floats(name, false)
			same(t, "Floats "+name, ov, oerr, v, err)
			v, err = in.Floats(name, true)
			ov, oerr = old.Floats(name, true)
			same(t, "Floats required "+name, ov, oerr, v, err)
			n, ok, err := in.Number(name)
			on, ook, oerr := old.Number(name)
			same(t, "Number "+name, []any{on, ook}, oerr, []any{n, ok}, err)
			k, err := in.Keyed(name)
			ok2, oerr := old.Keyed(name)
			same(t, "Keyed "+name, ok2, oerr, k, err)
			require.Equal(t, old.Has(name), in.Has(name))
		}
		for _, name := range []string{"id", "units"} {
			s, err := in.Strings(name)
			os, oerr := old.Strings(name)
			same(t, "Strings "+name, os, oerr, s, err)
		}
		rows, names, err := in.Matrix("scores")
		orows, onames, oerr := old.Matrix("scores")
		same(t, "Matrix", []any{orows, onames}, oerr, []any{rows, names}, err)
		counts, err := in.Counts("b", "c")
		ocounts, oerr := old.Counts("b", "c")
		same(t, "Counts", ocounts, oerr, counts, err)
		d, l, r, err := in.DiffsOrPair()
		od, ol, or, oerr := old.DiffsOrPair()
		same(t, "DiffsOrPair", []any{od, ol, or}, oerr, []any{d, l, r}, err)
		l, r, u, err := in.PairUnits()
		ol, or, ou, oerr := old.PairUnits()
		same(t, "PairUnits", []any{ol, or, ou}, oerr, []any{l, r, u}, err)
	})
}

// same fails t unless got and gotErr print as want and wantErr do, Go
// syntax, nil and NaN told apart, and the errors are about the input.
func same(t *testing.T, what string, want any, wantErr error, got any, gotErr error) {
	t.Helper()
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), what)
	if gotErr != nil {
		require.ErrorIs(t, gotErr, ErrBadInput, what)
		return
	}
	require.Equal(t, fmt.Sprintf("%#v", want), fmt.Sprintf("%#v", got), what)
}

// FuzzRecordsAsEncodingCSV holds records to encoding/csv's Reader with
// TrimLeadingSpace: the same records, and the same first error.
func FuzzRecordsAsEncodingCSV(f *testing.F) {
	for _, seed := range seeds {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, tsv bool) {
		comma := ','
		if tsv {
			comma = '\t'
		}
		cr := csv.NewReader(bytes.NewReader(data))
		cr.Comma, cr.TrimLeadingSpace = comma, true
		rd := newRecords(bufio.NewReaderSize(bytes.NewReader(data), 16), comma)
		for {
			want, wantErr := cr.Read()
			got, err := rd.next()
			require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err))
			if err != nil {
				return
			}
			require.Equal(t, len(want), len(got))
			for j := range want {
				require.Equal(t, want[j], string(got[j]))
			}
		}
	})
}

// failing reads data, then fails.
type failing struct{ data io.Reader }

func (r failing) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

func TestReadSaysWhatTheWholeInputIs(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0.125,", 20000) + "1"
	for _, tc := range []struct {
		name   string
		input  func() io.Reader
		format string
	}{
		{"a read error after a CSV error", func() io.Reader { return failing{strings.NewReader("a,b\n1\n")} }, "csv"},
		{"a read error in JSON", func() io.Reader { return failing{strings.NewReader(`{"left": [1]}`)} }, ""},
		{"an unknown format after a read error", func() io.Reader { return failing{strings.NewReader("")} }, "parquet"},
		{"JSON after 100 KiB of white space", func() io.Reader {
			return strings.NewReader(strings.Repeat(" \n", 50<<10) + `{"left": [1, 2]}`)
		}, ""},
		{"CSV after 100 KiB of white space", func() io.Reader {
			return strings.NewReader(strings.Repeat(" \n", 50<<10) + "left\n1\n")
		}, ""},
		{"a space cut at the sample's end", func() io.Reader {
			return strings.NewReader(strings.Repeat(" ", bufSize-1) + "\u2028{\"left\": [1]}")
		}, ""},
		{"lines longer than the buffer", func() io.Reader {
			return strings.NewReader("left,right\n" + long + "\n" + long + "," + long + "\n")
		}, ""},
		{"rows past the guess", func() io.Reader {
			return strings.NewReader("left,right\n" + strings.Repeat("1,2\n", 10000) + strings.Repeat("1,2\n", 100000))
		}, "csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			old, errOld := oldRead(tc.input(), "in", tc.format)
			in, err := Read(tc.input(), "in", tc.format)
			require.Equal(t, fmt.Sprint(errOld), fmt.Sprint(err))
			if err != nil {
				require.ErrorIs(t, err, ErrBadInput)
				return
			}
			d, l, r, err := in.DiffsOrPair()
			od, ol, or, oerr := old.DiffsOrPair()
			same(t, "DiffsOrPair", []any{od, ol, or}, oerr, []any{d, l, r}, err)
		})
	}
}

// FuzzParseFloatAsStrconv holds parseFloat to strconv.ParseFloat: the
// same bits, and an error for the same text.
func FuzzParseFloatAsStrconv(f *testing.F) {
	for _, s := range []string{"0", "-0", "+.5", "1.", ".", "0.03166132", "1.2345678e-05", "9007199254740993",
		"9007199254740992", "1e22", "1e23", "123456789012345678901", "0.000000000000000000000000001", "1e", "1e+",
		"0e999", "-0.0e-5", "1_0", "0x1p-2", "Inf", "nan", "4.9e-324", "1.7976931348623157e308", "00000000000000000000001.5"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantErr := strconv.ParseFloat(string(b), 64)
		got, err := parseFloat(b)
		require.Equal(t, wantErr == nil, err == nil, "%q", b)
		if err == nil {
			require.Equal(t, math.Float64bits(want), math.Float64bits(got), "%q: want %v, got %v", b, want, got)
		}
	})
}

func TestOpenSizesTheColumnsByTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pairs.csv")
	rows := strings.Repeat("0.25,0.5\n", 50_000) + strings.Repeat("1e-3,0.5\n", 50_000)
	require.NoError(t, os.WriteFile(path, []byte("left,right\n"+rows), 0o600))
	in, err := Open(path, "")
	require.NoError(t, err)
	for _, name := range []string{"left", "right"} {
		c := in.cols[name]
		require.Len(t, c.vals, 100_000)
		require.LessOrEqual(t, cap(c.vals), 106_000, "%s: guessed by the first lines' length, 5 %% over", name)
	}
}

package scores_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

// bigCSV is a wide CSV of n rows, larger than the readers' buffers: row i
// is u<i>,i/8,i%3 on line i+2, with lineEnd after each line. edit may
// replace the text of chosen rows.
func bigCSV(n int, lineEnd string, edit map[int]string) []byte {
	var b bytes.Buffer
	b.WriteString("sample_id,a,b" + lineEnd)
	for i := range n {
		if s, ok := edit[i]; ok {
			b.WriteString(s + lineEnd)
			continue
		}
		fmt.Fprintf(&b, "u%07d,%g,%d%s", i, float64(i)/8, i%3, lineEnd)
	}
	return b.Bytes()
}

// Records of a large file come back in file order, each with its own line
// number, whatever the line ends and compression.
func TestCSVLargeKeepsOrderAndLines(t *testing.T) {
	t.Parallel()
	const n = 60_000 // about 1.3 MB
	for _, tt := range []struct{ name, lineEnd string }{
		{"scores.csv", "\n"},
		{"scores.csv", "\r\n"},
		{"scores.csv.gz", "\n"},
	} {
		t.Run(fmt.Sprintf("%s %q", tt.name, tt.lineEnd), func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.name, bigCSV(n, tt.lineEnd, nil))
			got, err := readWide(t, path, "")
			require.NoError(t, err)
			require.Equal(t, []string{"a", "b"}, got.Metrics)
			require.Len(t, got.Rows, n)
			for i, r := range got.Rows {
				want := wideRow{
					ID:     fmt.Sprintf("u%07d", i),
					Values: []float64{float64(i) / 8, float64(i % 3)},
					Where:  path + ": line " + strconv.Itoa(i+2),
				}
				if !assertRow(t, want, r) {
					return
				}
			}
		})
	}
}

// assertRow fails the test with a diff when got is not want; it is quiet
// otherwise, since it runs for every row of a large file.
func assertRow(t *testing.T, want, got wideRow) bool {
	t.Helper()
	if want.ID != got.ID || want.Where != got.Where || !slices.Equal(want.Values, got.Values) {
		require.Equal(t, want, got)
		return false
	}
	return true
}

// A quoted field far into the file, one with a line end in it, is read as
// encoding/csv reads it, and the lines after it are numbered past it.
func TestCSVLargeQuoteLater(t *testing.T) {
	t.Parallel()
	const n, q = 50_000, 40_000
	path := inputtest.WriteFile(t, "scores.csv", bigCSV(n, "\n", map[int]string{q: "\"u,40000\nnext\",1,2"}))
	got, err := readWide(t, path, "")
	require.NoError(t, err)
	require.Len(t, got.Rows, n)
	require.Equal(t, wideRow{ID: "u,40000\nnext", Values: []float64{1, 2}, Where: path + ": line 40002"}, got.Rows[q])
	require.Equal(t, path+": line 40001", got.Rows[q-1].Where)
	require.Equal(t, path+": line 40004", got.Rows[q+1].Where)
	require.Equal(t, fmt.Sprintf("%s: line %d", path, n+2), got.Rows[n-1].Where)
	require.Equal(t, fmt.Sprintf("u%07d", n-1), got.Rows[n-1].ID)
}

// A problem far into the file is reported at its own line, after every
// record before it, with the message a short file gets for the same line.
func TestCSVLargeProblemLater(t *testing.T) {
	t.Parallel()
	const n, bad = 60_000, 45_000
	for _, line := range []string{
		"u0045000,abc,1",    // not a number
		"u0045000,1",        // too few fields
		"u0045000,1,2,3",    // too many
		"u0045000,1,NaN",    // NaN: the store refuses it, not the reader
		"u0045000,1\"x,2",   // a bare quote
		"u0045000,\"1\"x,2", // text after a closing quote
	} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			short := inputtest.WriteFile(t, "scores.csv", []byte("sample_id,a,b\n"+line+"\n"))
			_, wantErr := readWide(t, short, "")
			path := inputtest.WriteFile(t, "scores.csv", bigCSV(n, "\n", map[int]string{bad: line}))
			got, err := readWide(t, path, "")
			if wantErr == nil {
				require.NoError(t, err)
				require.Len(t, got.Rows, n)
				require.Equal(t, path+": line 45002", got.Rows[bad].Where)
				return
			}
			require.Error(t, err)
			require.ErrorIs(t, err, scores.ErrBadInput)
			want := strings.Replace(wantErr.Error(), short, path, 1)
			// The short file's problem is on line 2 (or at its end, line 3).
			want = strings.Replace(want, ": line 2", ": line 45002", 1)
			want = strings.Replace(want, ": line 3", ": line 45003", 1)
			require.Equal(t, want, err.Error())
			require.Len(t, got.Rows, bad, "the records before the problem")
		})
	}
}

// A quote never closed takes in the rest of the file, and encoding/csv
// reports it at the file's end.
func TestCSVLargeUnclosedQuote(t *testing.T) {
	t.Parallel()
	path := inputtest.WriteFile(t, "scores.csv", bigCSV(60_000, "\n", map[int]string{45_000: "u0045000,\"1,2"}))
	got, err := readWide(t, path, "")
	require.ErrorIs(t, err, scores.ErrBadInput)
	require.Equal(t, path+`: line 60001: extraneous or missing " in quoted-field at character 21`, err.Error())
	require.Len(t, got.Rows, 45_000)
}

// A gzip stream cut short is reported at the line after the last whole
// record read.
func TestCSVLargeTruncatedGzip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(bigCSV(100_000, "\n", nil))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	data := buf.Bytes()
	path := inputtest.WriteFile(t, "scores.csv", data[:len(data)/2]) // gzip magic, so read as gzip
	got, err := readWide(t, path, "csv")
	require.Error(t, err)
	require.ErrorIs(t, err, scores.ErrBadInput)
	require.NotEmpty(t, got.Rows)
	require.Equal(t, fmt.Sprintf("%s: line %d: the file is truncated", path, len(got.Rows)+2), err.Error())
	require.Equal(t, fmt.Sprintf("u%07d", len(got.Rows)-1), got.Rows[len(got.Rows)-1].ID)
}

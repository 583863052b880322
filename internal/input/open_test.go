package input_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// lines is n numbered lines of text.
func lines(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d\n", i+1)
	}
	return []byte(b.String())
}

func TestOpenText(t *testing.T) {
	t.Parallel()
	text := lines(3)
	tests := []struct {
		name    string
		content []byte
	}{
		{name: "plain.txt", content: text},
		{name: "gzipped.txt.gz", content: text},
		// Gzip is found by its magic bytes, not by the name.
		{name: "gzipped-without-its-extension.txt", content: inputtest.Gzip(t, text)},
		{name: "empty.txt", content: nil},
		{name: "one byte.txt", content: []byte{0x1f}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m input.Meter
			path := inputtest.WriteFile(t, tt.name, tt.content)
			f, err := input.Open(path, "a text", &m)
			require.NoError(t, err)
			defer f.Close()
			info, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, info.Size(), f.Size())
			done, total := m.Progress()
			require.Equal(t, info.Size(), total)
			require.Zero(t, done)

			r, err := f.Text(errBad)
			require.NoError(t, err)
			got, err := io.ReadAll(r)
			require.NoError(t, err)
			want := tt.content
			if strings.HasPrefix(tt.name, "gzipped") {
				want = text
			}
			require.Equal(t, string(want), string(got))
			done, _ = m.Progress()
			require.Equal(t, total, done, "every byte on disk read")

			// Again from the start; what was read before no longer counts.
			require.NoError(t, f.Rewind())
			done, _ = m.Progress()
			require.Zero(t, done)
			r, err = f.Text(errBad)
			require.NoError(t, err)
			again, err := io.ReadAll(r)
			require.NoError(t, err)
			require.Equal(t, got, again)
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := input.Open(dir, "a scores file", nil)
	require.EqualError(t, err, dir+": is a directory, not a scores file")

	_, err = input.Open(filepath.Join(dir, "absent.csv"), "a scores file", nil)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NotErrorIs(t, err, errBad)

	path := inputtest.WriteFile(t, "bad.csv", []byte{0x1f, 0x8b, 0, 0})
	f, err := input.Open(path, "a text", nil)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Text(errBad)
	require.EqualError(t, err, path+": the file is truncated")
	require.ErrorIs(t, err, errBad)
}

// TestTruncatedGzipAtItsLine reads a gzipped CSV cut in half: the error
// names the line where the compressed stream breaks, not the file alone.
func TestTruncatedGzipAtItsLine(t *testing.T) {
	t.Parallel()
	content := []byte("a,b\n")
	for i := range 100_000 {
		content = fmt.Appendf(content, "u%d,%d\n", i, i)
	}
	gz := inputtest.Gzip(t, content)
	path := inputtest.WriteFile(t, "scores.csv", gz[:len(gz)/2])
	f, err := input.Open(path, "a table", nil)
	require.NoError(t, err)
	defer f.Close()
	r, err := f.Text(errBad)
	require.NoError(t, err)
	c, err := input.NewCSV(path, r, ',', input.Columns{Max: 100}, errBad)
	require.NoError(t, err)
	var last int64
	for {
		_, err = c.Read()
		if err != nil {
			break
		}
		last = c.Line
	}
	require.Greater(t, last, int64(1000))
	require.Regexp(t, `^`+regexp.QuoteMeta(path)+`: line \d+: the file is truncated$`, err)
	require.EqualError(t, err, fmt.Sprintf("%s: line %d: the file is truncated", path, last+1))
	require.ErrorIs(t, err, errBad)
}

// A file named .gz whose bytes are not gzip is refused, rather than read
// as plain text; gzip is still found by its magic bytes whatever the name.
func TestGzNameWithoutGzipRefused(t *testing.T) {
	t.Parallel()
	text := lines(2)
	tests := []struct {
		name    string
		content []byte
		wantErr bool
	}{
		{name: "x.csv.gz", content: text, wantErr: true},
		{name: "X.CSV.GZ", content: text, wantErr: true},
		{name: "empty.csv.gz", content: nil, wantErr: true},
		{name: "one byte.csv.gz", content: []byte{0x1f}, wantErr: true},
		{name: "zipped, not gzipped.csv.gz", content: []byte("PK\x03\x04"), wantErr: true},
		{name: "gzipped.csv.gz", content: inputtest.Gzip(t, text)},
		{name: "gzipped without the suffix.csv", content: inputtest.Gzip(t, text)},
		{name: "gz inside the name.gz.csv", content: text},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tt.name)
			require.NoError(t, os.WriteFile(path, tt.content, 0o644))
			f, err := input.Open(path, "a text", nil)
			require.NoError(t, err)
			defer f.Close()
			r, err := f.Text(errBad)
			if tt.wantErr {
				require.EqualError(t, err, path+": not gzip, though its name says so")
				require.ErrorIs(t, err, errBad)
				return
			}
			require.NoError(t, err)
			got, err := io.ReadAll(r)
			require.NoError(t, err)
			require.Equal(t, string(text), string(got))
		})
	}
}

package input_test

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
)

func TestCSV(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		comma   rune
		content string
		header  []string
		records [][]string
		lines   []int64
		ragged  []string
		wantErr string
	}{
		{
			name: "byte order mark, spaces around names, CRLF, blank lines, a quoted line end", comma: ',',
			content: "\ufeff sample_id , a\r\n\r\nu1, 1\r\n\"u\n2\",2,3\n",
			header:  []string{"sample_id", "a"},
			records: [][]string{{"u1", "1"}, {"u\n2", "2", "3"}},
			lines:   []int64{3, 4},
			ragged:  []string{"", "3 fields, but the header has 2"},
		},
		{
			name: "tab separated: leading spaces stay", comma: '\t',
			content: "sample_id\ta\n u1\t1\n",
			header:  []string{"sample_id", "a"},
			records: [][]string{{" u1", "1"}},
			lines:   []int64{2},
			ragged:  []string{""},
		},
		{
			name: "one field", comma: ',',
			content: "a,b\nx\n",
			header:  []string{"a", "b"},
			records: [][]string{{"x"}},
			lines:   []int64{2},
			ragged:  []string{"1 field, but the header has 2"},
		},
		{
			name: "a quoting error at its line", comma: ',',
			content: "a,b\nx,1\ny\"z,2\n",
			header:  []string{"a", "b"},
			records: [][]string{{"x", "1"}},
			lines:   []int64{2},
			ragged:  []string{""},
			wantErr: `f.csv: line 3: bare " in non-quoted-field at character 2`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := input.NewCSV("f.csv", strings.NewReader(tt.content), tt.comma, input.Columns{Max: 100}, errBad)
			require.NoError(t, err)
			require.Equal(t, tt.header, c.Header)
			var got [][]string
			var lines []int64
			var ragged []string
			for {
				rec, err := c.Read()
				if err == io.EOF {
					break
				}
				if tt.wantErr != "" && err != nil {
					require.EqualError(t, err, tt.wantErr)
					require.ErrorIs(t, err, errBad)
					break
				}
				require.NoError(t, err)
				got = append(got, append([]string(nil), rec...))
				lines = append(lines, c.Line)
				ragged = append(ragged, c.Ragged(rec))
			}
			require.Equal(t, tt.records, got)
			require.Equal(t, tt.lines, lines)
			require.Equal(t, tt.ragged, ragged)
		})
	}
}

func TestCSVEmpty(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"", "\n\n", "\r\n"} {
		_, err := input.NewCSV("f.csv", strings.NewReader(content), ',', input.Columns{Max: 100}, errBad)
		require.ErrorIs(t, err, io.EOF, "%q", content)
	}
}

// The guard in front of encoding/csv counts columns and fields as
// encoding/csv does, separators and line ends inside quotes included, and
// refuses a header or record over the limit at the line where it starts.
func TestCSVColumnsCounted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		records int
		wantErr string
	}{
		{name: "at the limit", content: "a,b,c\n1,2,3\n", records: 1},
		{name: "separators and line ends in quotes", content: "a,\"b,x\",\"c\n\"\"d,\"\"\"\n1,\"2,\n,\",3\n4,5,6\n", records: 2},
		{name: "a header over", content: "a,b,c,d\n1,2,3,4\n", wantErr: "f.csv: line 1: the header has more than 3 columns; why"},
		{name: "a header over after a quoted line end", content: "\"a\n\",b,c,d\n", wantErr: "f.csv: line 1: the header has more than 3 columns; why"},
		{name: "a record over", content: "a,b,c\n1,2,3\n\n\"4\n\",5,6,7\n", records: 1, wantErr: "f.csv: line 4: more than 3 fields, but the header has 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := input.NewCSV("f.csv", strings.NewReader(tt.content), ',', input.Columns{Max: 3, Why: "why"}, errBad)
			n := 0
			for err == nil {
				if _, err = c.Read(); err == nil {
					n++
				}
			}
			require.Equal(t, tt.records, n)
			if tt.wantErr == "" {
				require.Equal(t, io.EOF, err)
				return
			}
			require.EqualError(t, err, tt.wantErr)
			require.ErrorIs(t, err, errBad)
		})
	}
}

// A line or a quoted record longer than MaxLineBytes is refused at the
// line where it starts; one of exactly MaxLineBytes is read.
func TestCSVLongRecord(t *testing.T) {
	t.Parallel()
	most := strings.Repeat("x", input.MaxLineBytes-2)
	tests := []struct {
		name    string
		content string
		wantErr string
	}{
		{name: "a line at the limit", content: "a,b\n" + most + ",1\nlast,2\n"},
		{name: "a line over", content: "a,b\n" + most + ",12\n", wantErr: "f.csv: line 2: the line is longer than 4 MiB, the most a line may hold"},
		{
			name: "a quoted record over", content: "a,b\n1,2\n\"x\n" + most + "\",1\n",
			wantErr: "f.csv: line 3: the record from this line on is longer than 4 MiB, the most a record may hold; is a quote left open?",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := input.NewCSV("f.csv", strings.NewReader(tt.content), ',', input.Columns{Max: 3}, errBad)
			require.NoError(t, err)
			for err == nil {
				_, err = c.Read()
			}
			if tt.wantErr == "" {
				require.Equal(t, io.EOF, err)
				return
			}
			require.EqualError(t, err, tt.wantErr)
			require.ErrorIs(t, err, errBad)
		})
	}
}

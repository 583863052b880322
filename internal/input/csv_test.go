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
			c, err := input.NewCSV("f.csv", strings.NewReader(tt.content), tt.comma, errBad)
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
		_, err := input.NewCSV("f.csv", strings.NewReader(content), ',', errBad)
		require.ErrorIs(t, err, io.EOF, "%q", content)
	}
}

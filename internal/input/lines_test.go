package input_test

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
)

func TestLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3<<20) // longer than any buffer
	text := "a\r\n\nb b\n" + long + "\nlast"
	for _, r := range []io.Reader{strings.NewReader(text), bufio.NewReaderSize(strings.NewReader(text), 1<<16)} {
		l := input.NewLines(r)
		var got []string
		var numbers []int64
		for {
			line, err := l.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			got = append(got, string(line))
			numbers = append(numbers, l.N)
		}
		require.Equal(t, []string{"a", "", "b b", long, "last"}, got)
		require.Equal(t, []int64{1, 2, 3, 4, 5}, numbers)
		_, err := l.Next()
		require.Equal(t, io.EOF, err)
	}
}

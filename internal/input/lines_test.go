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

// A line longer than MaxLineBytes is refused, reported by ReadError at its
// line; one of exactly MaxLineBytes, with a CRLF after it, is read.
func TestLinesTooLong(t *testing.T) {
	t.Parallel()
	most := strings.Repeat("x", input.MaxLineBytes)
	l := input.NewLines(strings.NewReader("a\n" + most + "\r\n" + most + "x\nb\n"))
	for _, want := range []string{"a", most} {
		line, err := l.Next()
		require.NoError(t, err)
		require.Equal(t, want, string(line))
	}
	_, err := l.Next()
	err = input.ReadError(errBad, input.Location{Path: "f.jsonl", Pos: l.N + 1}, err)
	require.EqualError(t, err, "f.jsonl: line 3: the line is longer than 4 MiB, the most a line may hold")
	require.ErrorIs(t, err, errBad)
}

package input

import (
	"bufio"
	"bytes"
	"io"
)

// Lines reads text a line at a time, up to MaxLineBytes a line, and counts
// the lines: the reading of JSON Lines files and of TREC runs and qrels.
type Lines struct {
	// N is the number of lines read so far: the line number of the last.
	N    int64
	br   *bufio.Reader
	long []byte // a line longer than br's buffer
}

// NewLines reads the lines of r: through r itself when it is a
// *bufio.Reader of 64 KiB or more, as File.Text returns, otherwise through
// a buffer of its own.
func NewLines(r io.Reader) *Lines {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	return &Lines{br: br}
}

// Next returns the next line without its line end ("\n" or "\r\n"), valid
// until the following call, or io.EOF after the last. A last line without
// a line end is a line. A failure to read, and a line longer than
// MaxLineBytes, is returned for the caller to report with ReadError at line
// N+1; the long line is refused once MaxLineBytes of it are read, so that
// memory holds no more of it.
func (l *Lines) Next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > MaxLineBytes+2 {
				return nil, &limitError{line: l.N + 1}
			}
			line, err = l.br.ReadSlice('\n')
			l.long = append(l.long, line...)
		}
		line = l.long
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > MaxLineBytes {
		return nil, &limitError{line: l.N + 1}
	}
	l.N++
	return line, nil
}

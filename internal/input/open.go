package input

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
)

// Meter counts the bytes that a reader has read of its files, for a
// progress bar. Every File opened with the same Meter adds to it. It is safe
// to read from another goroutine while the files are read.
type Meter struct {
	read, size atomic.Int64
}

// Progress reports the bytes read so far and the files' total size; done
// never exceeds total. For compressed input done counts compressed bytes,
// so it still ends at total.
func (m *Meter) Progress() (done, total int64) {
	total = m.size.Load()
	return min(m.read.Load(), total), total
}

// Finish marks every byte read, for a reader that has reached the end of its
// input without reading what comes after (a Parquet file's page indexes,
// an array it skips).
func (m *Meter) Finish() { m.read.Store(m.size.Load()) }

// File is an input file open for reading, with its size. What is read
// through Reader, ReaderAt and Text counts on its Meter.
type File struct {
	f     *os.File
	r     io.Reader // a stream's source, when f is nil
	path  string
	size  int64
	meter *Meter
	read  atomic.Int64 // this file's share of meter
	gz    *gzip.Reader
}

// Open opens the file at path for a reader that reads it as a noun, such as
// "a scores file": a directory is refused with a message that says so. The
// file's size is added to m, when it is not nil.
//
// The error is the *os.PathError of os.Open when the file cannot be opened.
func Open(path, noun string, m *Meter) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory, not %s", path, noun)
	}
	if m == nil {
		m = new(Meter)
	}
	m.size.Add(info.Size())
	return &File{f: f, path: path, size: info.Size(), meter: m}, nil
}

// Stream is input that is read once, from r, as a request's body is: Text
// and Reader read it, but ReaderAt and Rewind do not work, so only text
// formats read it. name stands for the path in messages; size is its size
// for the Meter, or 0 when unknown.
func Stream(r io.Reader, name string, size int64, m *Meter) *File {
	if m == nil {
		m = new(Meter)
	}
	m.size.Add(max(size, 0))
	return &File{r: r, path: name, size: size, meter: m}
}

// errStream is the error of what a stream cannot do.
var errStream = errors.New("input read once, as a stream, cannot be read again or at an offset")

// Path is the file's path as given to Open.
func (f *File) Path() string { return f.path }

// Size is the file's size on disk.
func (f *File) Size() int64 { return f.size }

// Reader reads the file from where it stands, unbuffered.
func (f *File) Reader() io.Reader { return counting{f} }

// ReaderAt reads the file at any offset, for formats with an index at the
// end (zip, Parquet).
func (f *File) ReaderAt() io.ReaderAt { return countingAt{f} }

// Text returns the file's text from where it stands, buffered, and
// decompressed when it starts with the gzip magic bytes, whatever the file's
// name. A file named .gz that does not start with them is an error wrapping
// kind, rather than text read as it is: its name says it is compressed, so
// it is more likely damaged or misnamed than plain. A gzip header that
// cannot be read is an error wrapping kind too; a truncated or corrupt
// stream later on is reported by ReadError, at the line where reading it
// failed.
func (f *File) Text(kind error) (io.Reader, error) {
	br := bufio.NewReaderSize(f.Reader(), 1<<18)
	magic, err := br.Peek(2)
	if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		if (err == nil || err == io.EOF) && strings.HasSuffix(strings.ToLower(f.path), ".gz") {
			return nil, Location{Path: f.path}.Errorf(kind, "not gzip, though its name says so")
		}
		// A short or unreadable file is the format reader's to report.
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, ReadError(kind, Location{Path: f.path}, err)
	}
	f.gz = zr
	return bufio.NewReaderSize(zr, 1<<20), nil
}

// Rewind goes back to the start of the file, to read it once more with
// Text or Reader. The bytes read before no longer count as progress. A
// Stream cannot rewind.
func (f *File) Rewind() error {
	if f.f == nil {
		return errStream
	}
	if f.gz != nil {
		f.gz.Close()
		f.gz = nil
	}
	f.meter.read.Add(-f.read.Swap(0))
	_, err := f.f.Seek(0, io.SeekStart)
	return err
}

// Close closes the file.
func (f *File) Close() error {
	var err error
	if f.gz != nil {
		err = f.gz.Close()
	}
	if f.f == nil {
		return err
	}
	return errors.Join(err, f.f.Close())
}

type counting struct{ f *File }

func (c counting) Read(p []byte) (int, error) {
	var n int
	var err error
	if c.f.f == nil {
		n, err = c.f.r.Read(p)
	} else {
		n, err = c.f.f.Read(p)
	}
	c.f.count(n)
	return n, err
}

type countingAt struct{ f *File }

func (c countingAt) ReadAt(p []byte, off int64) (int, error) {
	if c.f.f == nil {
		return 0, errStream
	}
	n, err := c.f.f.ReadAt(p, off)
	c.f.count(n)
	return n, err
}

func (f *File) count(n int) {
	f.read.Add(int64(n))
	f.meter.read.Add(int64(n))
}

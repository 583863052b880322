// Package input is the plumbing that verdict's file readers share: the
// per-unit score readers of package scores and the ranking readers of
// package evaluate open, decompress, split and decode their files through
// it, so that the same bytes give the same sample IDs and the same messages
// whichever command reads them.
//
// # What it holds
//
//   - Open: a file with its size, a Meter of the bytes read for a progress
//     bar, and Text, which decompresses a file that starts with the gzip
//     magic bytes whatever its name, and refuses a file named .gz that
//     does not;
//   - CSV: a CSV or TSV reader that reads the header line, drops a byte
//     order mark and reports quoting errors at their line;
//   - Lines: text a line at a time, with line numbers (JSON Lines, TREC);
//   - OpenParquet, Column and Batches: a Parquet file's columns decoded in
//     step, a batch of rows at a time, row group by row group;
//   - ReadNPY and NPY: a .npy array's header (dtype, shape, order) and its
//     data, streamed a batch of elements at a time, with the size of an
//     element bounded before anything is allocated for it;
//   - IDs and TrimID: the one conversion of a decoded sample or item ID to
//     a string, without the white space around it, and TextProblem, the one
//     check that a sample ID or metric name is text the store can keep
//     (UTF-8, no NUL byte);
//   - ParseNumber and LostInReal: numbers written as text, read the way
//     Python, NumPy and pandas write them, and the check that a value does
//     not become 0 in the store's real;
//   - Location and Error: where a problem is (file, line or 1-based row or
//     record, the 0-based row of a ranking reader, sample ID, column) and
//     what it is, wrapping the sentinel of the package that reports it.
//
// # Limits
//
// A reader's memory is bounded by what it keeps, never by what a file
// claims or by how long one of its lines is, so that a corrupt or hostile
// file (a gzip stream that expands to one line of gigabytes, a header of
// ten million columns, a .npy header claiming strings of a gigabyte) is
// refused with its file and line, at the cost of a few megabytes:
//
//   - MaxLineBytes (4 MiB): the longest line of JSON Lines, TREC or a
//     table, and the longest CSV or TSV record, checked while it is read;
//   - Columns: the most columns of a CSV or TSV header, counted while the
//     header is read, and the most fields of a record (MaxColumns, 1,024,
//     unless the reader says fewer; a scores file has 1,002);
//   - MaxIDBytes and MaxNameBytes (1,024 bytes each): the longest sample ID,
//     the store's bound, checked where the file and line are known, and
//     the longest metric name; a message quotes only the first 64 bytes of
//     a longer one;
//   - MaxItemBytes (64 KiB): the largest element of a .npy array, checked
//     before anything is allocated for it, and CheckData: no buffer is
//     sized by a shape before the file or member is known to hold it;
//   - a Parquet file's metadata, which parquet-go allocates for as it
//     claims: the counts and lengths of its footer, checked against the
//     footer's bytes before parquet-go decodes it, and the page headers of
//     each column chunk that Batches reads, checked before parquet-go reads
//     the chunk: a page within its chunk, at most 64 MiB plus 16 times its
//     size once uncompressed, and at most 2^26 values; and each page's
//     data, which parquet-go decompresses for as long as it lasts,
//     decompressed first within the size its header claims (a snappy
//     page's stated length read instead).
//
// # What it does not do
//
// It knows nothing of metrics, scores or rankings: which columns a file must
// have and what they mean is for the packages that use it. It exports no
// sentinel errors of its own; every error about a file's content wraps the
// sentinel its caller passes (scores.ErrBadInput, evaluate.ErrBadInput), so
// that each package keeps documenting the errors it returns.
package input

// Package scores reads and writes per-unit score files: one value per
// sample ID (and draw) and metric, computed by a training job and stored by
// `verdict log`, or written by `verdict evaluate --per-user-out`.
//
// # Reading
//
// OpenScores opens one file and tells from its columns whether it is in wide
// form (one row per sample ID and draw, one column per metric) or in long form
// (one sample_id, metric, value record per line). Wide returns a reader for the
// first, Long one for the second; both stream, so memory stays flat however
// large the file is.
//
// The formats are CSV and TSV (optionally gzipped), JSON Lines (optionally
// gzipped), Parquet and NumPy .npz. Every format names its columns the same
// way:
//
//   - sample_id: the unit's ID, a string or an integer (kept as its decimal
//     text);
//   - draw: optional, a whole number from 0 to 32767 for protocols that score
//     one sample several times;
//   - wide form: every other column is a metric, e.g. ndcg@10;
//   - long form: exactly sample_id, metric and value, plus optional draw.
//
// # Sample IDs
//
// A sample ID is its text without the white space around it (spaces, tabs,
// line ends, no-break spaces), in every format: " u1", "u1 " and "u1" are the
// same sample, and an ID of white space alone is empty (which the store
// refuses). Space inside an ID is kept. The ranking readers of package
// evaluate apply the same rule, through the same code (internal/input), so
// that a user's values logged with `verdict log` pair with an evaluation
// that `verdict evaluate` computed, and fingerprint the same: evaluations are
// paired by the exact bytes of their sample IDs, and a TREC run, whose
// columns are separated by blanks, cannot hold such white space at all.
// Integer IDs are kept as their decimal text. Sample IDs and metric names
// must be UTF-8 text without NUL bytes, which the store's text holds: one
// that is not (a CSV written as Latin-1, a JSON string with a lone
// surrogate escape as Python writes an undecodable byte, a NumPy 'U'
// string with a surrogate code point) is refused with its file, line or
// row, and column.
//
// A pandas index is refused in CSV, where to_csv without index=False writes
// it as a first column with no name (or "Unnamed: 0" after a round trip),
// and skipped in Parquet, where pandas stores it as __index_level_0__.
//
// The readers report what is wrong with a file's own syntax: a missing or
// duplicate column, a ragged row, a cell that is not a number, a missing
// value. Each such error wraps ErrBadInput and names the file, the line (text
// formats) or the 1-based data row (Parquet, NumPy), the sample ID when it is
// known and the column. Checks that do not depend on the format, such as empty
// sample IDs, NaN and ±Inf, duplicate (sample ID, draw) pairs and an empty
// input, are left to the store.
//
// A number written as text is read as Python, NumPy and pandas write one:
// 0.5, -1, 1e-05, 1.5E+10 (and in JSON Lines, JSON's numbers with NaN,
// Infinity and -Infinity). What Go's strconv would also read but no such
// program writes, such as 1_0 or 0x1p-2, is not a number. The store keeps
// values as real (float4), so a value that is not zero but that a real
// holds as 0 (|x| ≤ 2^-150 ≈ 7e-46, such as 1e-50) is refused, in every
// format, rather than stored as 0; subnormal reals, down to 1.4e-45, are
// kept. Values too large for a real are refused by the store.
//
// # Limits
//
// Memory stays bounded whatever a file holds or claims, so a corrupt or
// hostile file is refused at its line, or row, rather than exhausting
// memory:
//
//   - a line of CSV, TSV or JSON Lines (a CSV record, quoted line ends
//     included) holds at most 4 MiB (input.MaxLineBytes), checked as it is
//     read: a gzip stream that expands to one line of gigabytes is refused
//     once 4 MiB of it are read;
//   - a file has at most 1,000 metrics, the store's limit, besides
//     sample_id and draw: a CSV header's columns and a JSON object's keys
//     are counted as they are read, so a header of ten million columns is
//     refused at its 1,003rd, and a Parquet schema's columns and an .npz
//     archive's members are counted before any column is read;
//   - a sample ID and a metric name hold at most 1,024 bytes each
//     (input.MaxIDBytes, the store's bound on a sample ID, and
//     input.MaxNameBytes);
//   - an .npz array's elements hold at most 64 KiB (input.MaxItemBytes),
//     and no buffer is sized by an array's shape before the archive is
//     known to hold the data.
//
// # What it does not do
//
// It does not compute metrics: package evaluate scores rankings. It does
// not aggregate: the readers hand rows to the store as they are read, and
// the store sums them. It does not guess a format from a file's content,
// except that CSV, TSV and JSON Lines files are decompressed whenever they
// start with the gzip magic bytes; one named .gz that does not is refused
// ("scores.csv.gz: not gzip, though its name says so") rather than read
// as plain text.
package scores

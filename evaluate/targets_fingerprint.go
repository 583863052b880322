package evaluate

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/verdict-ml/verdict/fingerprint"
)

// FingerprintTargets returns the fingerprint of the targets at path, read
// without predictions, and the number of samples it covers: those with at
// least one relevant item. It is exactly the fingerprint that a ranking
// reader computes for the same targets (Rankings.Targets().Sum() once Next
// has returned io.EOF), so per-sample scores computed elsewhere can be
// logged with it and compared with evaluations that verdict ran.
//
// format names how the targets are saved, or is "" to tell it by the file
// name's extension:
//
//   - "npz" (.npz): a CSR matrix as scipy.sparse.save_npz writes it, one row
//     per sample and one column per item; a stored value that is not zero
//     makes the item relevant. sampleIDs is an optional .npy file of the
//     rows' IDs, integers or strings; without it a row's ID is its index in
//     decimal. The matrix is streamed, a batch of rows at a time.
//   - "qrels" (.qrels): TREC qrels, "query iteration document relevance"
//     lines; a relevance above 0 makes the document relevant.
//   - "table" (.csv, .tsv, either optionally gzipped as .csv.gz, or
//     .parquet): a long table with the columns sample_id and item, one
//     relevant item per line.
//
// As in the readers, a column index of the matrix is an item ID written in
// decimal, and a sample's repeated items count once. Qrels and tables are
// read whole, as OpenTRECRankings and OpenTableRankings read them, and
// refused past DefaultMaxHeldBytes of memory.
//
// FingerprintTargets returns an error wrapping ErrUnknownFormat when the
// format is unknown or, for "", the extension is none of those above (for
// "table", the extension must be one of a table's as well), one wrapping
// ErrBadInput about the content of a file, with the messages of the readers
// (which name the file, and the line, row or sample when known), and the
// *os.PathError of os.Open when a file cannot be opened. sampleIDs with a
// format other than "npz" is an error that wraps neither: qrels and tables
// name their samples themselves.
func FingerprintTargets(path, sampleIDs, format string) (fp string, samples int64, err error) {
	format, err = targetsFormat(path, format)
	if err != nil {
		return "", 0, err
	}
	if sampleIDs != "" && format != "npz" {
		return "", 0, fmt.Errorf("%s: sample IDs from %s apply only to targets in .npz; %s targets name their samples", path, sampleIDs, format)
	}
	var set *fingerprint.Set
	switch format {
	case "npz":
		set, err = csrTargets(path, sampleIDs)
	case "qrels":
		set, err = qrelsTargets(path)
	case "table":
		set, err = tableTargets(path)
	}
	if err != nil {
		return "", 0, err
	}
	return set.Sum(), int64(set.Len()), nil
}

const targetsFormatHelp = "targets are a scipy.sparse CSR matrix (.npz), TREC qrels (.qrels) or a long table " +
	"of sample_id and item (.csv, .tsv, either may be gzipped as .csv.gz, or .parquet); " +
	"when the file name does not tell, name the format: npz, qrels or table"

// targetsFormat resolves FingerprintTargets' format argument.
func targetsFormat(path, format string) (string, error) {
	if format != "" {
		switch f := strings.ToLower(format); f {
		case "npz", "qrels", "table":
			return f, nil
		}
		return "", &targetsFormatError{fmt.Sprintf("%s: unknown targets format %q: %s", path, format, targetsFormatHelp)}
	}
	name := strings.ToLower(filepath.Base(path))
	base, gz := strings.CutSuffix(name, ".gz")
	ext := filepath.Ext(base)
	switch {
	case ext == ".csv" || ext == ".tsv":
		return "table", nil
	case gz:
		ext += ".gz"
	case ext == ".parquet":
		return "table", nil
	case ext == ".npz":
		return "npz", nil
	case ext == ".qrels":
		return "qrels", nil
	case ext == "":
		return "", &targetsFormatError{fmt.Sprintf("%s: unknown targets format: the file name has no extension; %s", path, targetsFormatHelp)}
	}
	return "", &targetsFormatError{fmt.Sprintf("%s: unknown targets format %q: %s", path, ext, targetsFormatHelp)}
}

// targetsFormatError is the error of FingerprintTargets for a format it
// does not know. It wraps ErrUnknownFormat.
type targetsFormatError struct{ msg string }

func (e *targetsFormatError) Error() string { return e.msg }

func (e *targetsFormatError) Unwrap() error { return ErrUnknownFormat }

// csrTargets fingerprints the CSR matrix at path as NumPyRankings does,
// with its csrReader, a batch of rows at a time. There are no predictions
// to set the number of rows, so the matrix's shape sets it.
func csrTargets(path, sampleIDs string) (*fingerprint.Set, error) {
	r := &NumPyRankings{
		n:  -1,
		tg: &csrReader{path: path, batchSize: defaultRankingBatch, fp: fingerprint.NewTargets()},
	}
	defer r.Close()
	if err := r.openTargets(path, path); err != nil {
		return nil, err
	}
	if sampleIDs != "" {
		if err := r.openSampleIDs(sampleIDs, r.n, path+" has %d rows"); err != nil {
			return nil, err
		}
	}
	t := r.tg
	t.n = r.n
	var tr targetRows
	for {
		t.fill(&tr)
		if tr.err == io.EOF {
			return t.fp, nil
		}
		if tr.err != nil {
			return nil, tr.err
		}
	}
}

// qrelsTargets fingerprints the qrels at path: every query with a relevant
// document, which TRECRankings returns as a row, from the run or missing
// from it.
func qrelsTargets(path string) (*fingerprint.Set, error) {
	r := &TRECRankings{readerCore: newReaderCore(RankingOptions{}), qrelsPath: path, docs: map[string]int32{}, byQuery: map[string]*qrelsQuery{}}
	if err := r.readQrels(); err != nil {
		return nil, err
	}
	for _, q := range r.queries {
		r.addTargets(q.id, q.relevant)
	}
	return r.fp, nil
}

// tableTargets fingerprints the long table at path: every sample, which
// TableRankings returns as a row, predicted or missing.
func tableTargets(path string) (*fingerprint.Set, error) {
	r := &TableRankings{readerCore: newReaderCore(RankingOptions{}), items: map[string]int32{}, bySamp: map[string]int32{}}
	if err := r.readTargets(path); err != nil {
		return nil, err
	}
	for _, s := range r.samples {
		r.addTargets(s.id, r.related[s.start:s.end])
	}
	return r.fp, nil
}

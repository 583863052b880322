package evaluate

import "github.com/verdict-ml/verdict/request"

// Inputs name the files an evaluation reads, of one kind: NumPy arrays
// (items and targets, with optional scores and sample IDs), a TREC run
// with its qrels, or long tables of predictions and targets. Each door
// takes them its own way (flags, multipart parts), under these names.
type Inputs struct {
	Items, Scores, Targets, SampleIDs string
	TRECRun, TRECQrels                string
	Predictions                       string
}

// Open opens the rankings the inputs name, refusing inputs of several kinds
// or of none, and a kind without its files, with errors that name the
// inputs as fields ({items}: request.Error).
func (in Inputs) Open(opts RankingOptions) (Rankings, error) {
	numpy, trec, table := in.Items+in.Scores+in.SampleIDs != "", in.TRECRun+in.TRECQrels != "", in.Predictions != ""
	switch {
	case numpy && trec || numpy && table || trec && table:
		return nil, request.Errorf("give one input: NumPy ({items}), TREC ({trec_run}) or long tables ({predictions})")
	case numpy && (in.Items == "" || in.Targets == ""):
		return nil, request.Errorf("NumPy input needs {items} and {targets} ({scores} and {sample_ids} are optional)")
	case numpy:
		return OpenNumPyRankings(in.Items, in.Scores, in.Targets, in.SampleIDs, opts)
	case trec && (in.TRECRun == "" || in.TRECQrels == ""):
		return nil, request.Errorf("TREC input needs both {trec_run} and {trec_qrels}")
	case trec:
		return OpenTRECRankings(in.TRECRun, in.TRECQrels, opts)
	case table && in.Targets == "":
		return nil, request.Errorf("{predictions} needs {targets} (a sample_id,item table)")
	case table:
		return OpenTableRankings(in.Predictions, in.Targets, opts)
	}
	return nil, request.Errorf("no input: give {items} and {targets}, {trec_run} and {trec_qrels}, or {predictions} and {targets}")
}

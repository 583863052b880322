package evaluate

import (
	"strings"

	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/scores"
)

// Request computes ranking metrics per user from top-K predictions and
// their targets, and logs them as an evaluation of a run, as the front
// doors take it (package request). Its inputs are files, which each door
// takes its own way.
type Request struct {
	Metrics        []string `req:"metrics" short:"m" arg:"SPEC" help:"metric specs, e.g. ndcg@10,20,50, or coverage@10 for the share of the catalogue in the top 10 of all users (default: calibrated_recall and ndcg at the full width of the predictions)"`
	CatalogueSize  int      `req:"catalogue_size" arg:"N" help:"the number of items in the catalogue, for coverage@K (default: the targets' columns, for NumPy input)"`
	NoValidate     bool     `req:"no_validate" help:"skip the checks of the predictions"`
	NoLog          bool     `req:"no_log" help:"compute and answer, but store nothing"`
	NoPerUser      bool     `req:"no_per_user" help:"log the means and counts only, no per-user values: for monitoring that charts means (it cannot be compared)"`
	DebugUsers     int      `req:"debug_users" arg:"N" help:"spell out the first N users with targets: top-k items and scores, targets, hit ranks, every metric's value (stored with the evaluation)"`
	DebugSampleIDs []string `req:"debug_sample_ids" arg:"ID" help:"spell out these users by sample ID (a,b,c), as debug_users does"`
	scores.RunInfo
}

// Options checks every rule of the request and gives the options of Run,
// but for the store and the idempotency of the log. The evaluation to log
// is described with the run's description (see scores.RunInfo.Evaluation);
// remote and paramsFile are as there.
func (r Request) Options(remote bool, paramsFile string) (RunOptions, error) {
	metrics, wholeSet, err := ParseMetricSpecs(r.Metrics)
	if err != nil {
		return RunOptions{}, err
	}
	if r.CatalogueSize < 0 {
		return RunOptions{}, request.Errorf("{catalogue_size} must be a positive number of items, not %d", r.CatalogueSize)
	}
	opts := RunOptions{Metrics: metrics, NoPerUser: r.NoPerUser,
		Debug: DebugSelection{First: r.DebugUsers, SampleIDs: strings.FieldsFunc(strings.Join(r.DebugSampleIDs, ","), func(c rune) bool { return c == ',' })}}
	// Whole-set metrics are made here when the catalogue's size is given,
	// and by Run from the input's otherwise.
	if r.CatalogueSize > 0 {
		for _, s := range wholeSet {
			opts.WholeSet = append(opts.WholeSet, s.Metrics(r.CatalogueSize)...)
		}
	} else {
		opts.WholeSetSpecs = wholeSet
	}
	if r.NoLog {
		if r.NoPerUser {
			return opts, request.Errorf("{no_per_user} logs the means without per-user values, and {no_log} logs nothing: give one")
		}
		return opts, nil
	}
	if err := r.RunInfo.Check("logging needs %s (or {no_log} to only compute)"); err != nil {
		return opts, err
	}
	opts.Log, err = r.RunInfo.Evaluation(remote, paramsFile)
	return opts, err
}

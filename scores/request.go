package scores

import (
	"fmt"
	"strings"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/internal/runinfo"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/store"
)

// RunInfo names the run and the evaluation a log or an evaluate stores, and
// describes the run, as the front doors take them (package request).
type RunInfo struct {
	Experiment string   `req:"experiment" short:"e" arg:"NAME" help:"experiment (created on first use)"`
	Run        string   `req:"run" short:"r" arg:"NAME" help:"run (created on first use)"`
	EvalSet    string   `req:"eval_set" short:"s" arg:"NAME" help:"evaluation set"`
	Params     []string `req:"param" arg:"KEY=VALUE" help:"run parameter KEY=VALUE; VALUE is JSON when it parses, else a string"`
	Tags       []string `req:"tag" arg:"KEY[=VALUE]" help:"run tag KEY=VALUE, or KEY for KEY=true; a later log may change a tag's value"`
	Meta       []string `req:"meta" arg:"KEY=VALUE" help:"evaluation metadata KEY=VALUE"`
	GitCommit  string   `req:"git_commit" arg:"COMMIT" help:"git commit of the run (the command line's default: HEAD of the working directory's repository)"`
	Group      string   `req:"group" arg:"CONFIG" help:"the configuration the run trains with one of several seeds, fixed once logged"`
	Step       *int64   `req:"step" arg:"N" help:"training step of the evaluation (epoch, global step, build number): RUN@N names it, and a run has one evaluation per evaluation set and step"`
}

// missing lists the run's missing names, as fields to spell ({run}), or
// nil when experiment, run and evaluation set are all given.
func (r RunInfo) missing() []string {
	var absent []string
	for _, f := range []struct{ name, v string }{{"experiment", r.Experiment}, {"run", r.Run}, {"eval_set", r.EvalSet}} {
		if f.v == "" {
			absent = append(absent, "{"+f.name+"}")
		}
	}
	return absent
}

// Check refuses a run without its experiment, run or evaluation set; to
// says what they are needed for ("log needs %s").
func (r RunInfo) Check(to string) error {
	if absent := r.missing(); absent != nil {
		list := absent[0]
		for i, a := range absent[1:] {
			sep := ", "
			if i == len(absent)-2 {
				sep = " and "
			}
			list += sep + a
		}
		return request.Errorf(fmt.Sprintf(to, list))
	}
	return nil
}

// Evaluation is the evaluation r names, described: remote says the run is
// elsewhere (an empty git commit stays empty), paramsFile is a JSON object
// of run parameters, or "".
func (r RunInfo) Evaluation(remote bool, paramsFile string) (store.NewEvaluation, error) {
	ev := store.NewEvaluation{Experiment: r.Experiment, Run: r.Run, EvalSet: r.EvalSet, Step: r.Step, Group: r.Group}
	d, err := runinfo.Sources{ParamsFile: paramsFile, Params: r.Params, Meta: r.Meta, Tags: r.Tags, GitCommit: r.GitCommit, Remote: remote}.Describe()
	if err != nil {
		return ev, request.Errorf("%s", err.Error())
	}
	ev.Params, ev.TagValues, ev.Metadata, ev.GitCommit = d.Params, d.Tags, d.Metadata, d.GitCommit
	return ev, nil
}

// LogRequest stores per-unit scores computed elsewhere, or a classifier's
// predictions, as one evaluation of a run.
type LogRequest struct {
	RunInfo
	TargetFingerprint string   `req:"target_fingerprint" arg:"F" help:"fingerprint of the targets, from verdict fingerprint"`
	LowerIsBetter     []string `req:"lower_is_better" arg:"METRIC" help:"a metric for which lower is better, e.g. logloss"`
	Protocol          string   `req:"protocol" default:"holdout" arg:"PROTOCOL" help:"how the evaluation was drawn"`
	Folds             int      `req:"folds" arg:"K" help:"number of folds K (k-fold protocols)"`
	Repeats           int      `req:"repeats" arg:"R" help:"number of repetitions R (repeated k-fold)"`
	NTrain            int64    `req:"n_train" arg:"N" help:"training set size N of each fold (k-fold protocols)"`
	NTest             int64    `req:"n_test" arg:"N" help:"test set size N of each fold (k-fold protocols)"`
	RequiredK         int      `req:"required_k" arg:"K" help:"largest cutoff K the metrics look at, recorded with the protocol"`
	InputFormat       string   `req:"input_format" arg:"FORMAT" help:"input format (default: from the file's extension, or the body's Content-Type)"`
	AggregatesOnly    bool     `req:"aggregates_only" help:"store the means and counts but not the per-unit values, for monitoring that only charts means (such an evaluation cannot be compared)"`
	Predictions       bool     `req:"predictions" door:"api" help:"the input is a classifier's predictions, sample_id,label,score (binary) or sample_id,label,p_<class>... (multi-class), and verdict computes and stores the metrics"`
	Threshold         float64  `req:"threshold" default:"0.5" arg:"T" help:"with predictions: the score at or above which a binary prediction is positive (accuracy, precision, recall, f1)"`
	Bins              int      `req:"bins" default:"10" arg:"N" help:"with predictions: equal-width bins of the expected calibration error (ece)"`
}

// Required lists the run's names: a log stores an evaluation of them.
func (LogRequest) Required() []string { return []string{"experiment", "run", "eval_set"} }

// Choices lists the values of the request's enumerated fields.
func (LogRequest) Choices() map[string][]string {
	return map[string][]string{
		"protocol":     {"holdout", "kfold", "repeated_kfold", "5x2"},
		"input_format": {"csv", "tsv", "jsonl", "ndjson", "parquet", "npz"},
	}
}

// Check holds the rules between the request's fields; labels says whether
// 0/1 labels come with it.
func (r LogRequest) Check(labels bool, given func(name string) bool) error {
	if err := r.RunInfo.Check("log needs %s"); err != nil {
		return err
	}
	for _, f := range []string{"threshold", "bins", "labels", "target_fingerprint", "lower_is_better", "aggregates_only"} {
		on := given(f) || f == "labels" && labels
		if forPredictions := f == "threshold" || f == "bins"; on && forPredictions != r.Predictions {
			return request.Errorf("{"+f+"} does not apply %s {predictions}", map[bool]string{true: "without", false: "with"}[forPredictions])
		}
	}
	if err := r.Classify().Check(); err != nil {
		// "bad parameter: bins 0: want 1 to 100": the field, then the problem.
		name, problem, _ := strings.Cut(strings.TrimPrefix(err.Error(), classify.ErrBadParameter.Error()+": "), " ")
		return request.Errorf("{"+name+"} %s", problem)
	}
	return nil
}

// Classify is the options of a log of predictions.
func (r LogRequest) Classify() classify.Options {
	return classify.Options{Threshold: r.Threshold, Bins: r.Bins}
}

// Evaluation is the evaluation the request logs, described (see
// RunInfo.Evaluation).
func (r LogRequest) Evaluation(remote bool, paramsFile string) (store.NewEvaluation, error) {
	ev, err := r.RunInfo.Evaluation(remote, paramsFile)
	ev.TargetFingerprint, ev.LowerIsBetter, ev.AggregatesOnly = r.TargetFingerprint, r.LowerIsBetter, r.AggregatesOnly
	ev.Protocol = store.Protocol{Name: r.Protocol, RequiredK: r.RequiredK, Folds: r.Folds, Repeats: r.Repeats, NTrain: r.NTrain, NTest: r.NTest}
	return ev, err
}

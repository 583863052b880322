package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
)

// warningTexts word each compare.Warning code: what the calibration study
// found on data like these. {units} stands for Warning.Units.
var warningTexts = map[string]string{
	"folds-as-units":                   "the folds of a cross-validation share most of their training data, and a test that treats them as independent units rejected 34-58 % of true nulls in the calibration study",
	"five-by-two":                      "the 5x2cv t's interval, a bootstrap of 10 fold differences, held the true difference in only 45-57 % of the calibration study's data sets, and its p-value rejected up to 9.8 % of true nulls at 300 rows or fewer",
	"short-interval":                   "with about {units} effective units, the bootstrap percentile interval held the true difference in as few as 87 % of the calibration study's data sets, not 95 %; the decision, which also needs the randomization test, keeps alpha",
	"wilcoxon-not-means":               "Wilcoxon's test asks whether the differences are symmetric about zero, not whether the means are equal: where the models' per-user distributions differ in shape it rejected up to 70 % of equal means at 10,000 users in the calibration study; the decision, which also needs the interval, keeps alpha",
	"auc-bootstrap-few-positives":      "with {units} samples of the rarer class, the stratified bootstrap of AUC rejected 6.6 % of true nulls in the calibration study",
	"classifier-bootstrap-few-samples": "with {units} samples of the rarer class, the stratified bootstrap of this metric rejected 8-15 % of true nulls in the calibration study, and its interval held the truth in as few as 78 %; log more samples, or compare roc_auc, whose DeLong test is calibrated",
	"ece-interval":                     "the bootstrap interval of an ECE difference held the true difference in only 67-77 % of the calibration study's data sets, even at 1,000 samples, while its test rarely rejects: read it as neither a bound nor a test",
	"negligible-effect":                "negligible effect: |d_z| < 0.01 at n = {units}: the mean difference is less than a hundredth of the per-unit differences' standard deviation, so at this many units even a distinguishable difference may not matter",
	"seed-variance-not-counted":        "the two runs belong to groups {groups}, configurations trained with several seeds: this test counts the users' noise, not the seeds', and a single pair of runs of equal configurations was called different in 27–94 % of the calibration study's simulations with seed noise (docs/calibration.md, \"Configurations trained with several seeds\"); count both with verdict compare -e {experiment} --groups {group-args}",
	"few-differing-units":              "only {units} units differ between the two sides: no interval reached its confidence on such data in the calibration study (the t interval 91 %, the percentile 77 %); log more units",
}

// WarningText says a warning in a sentence: what the study found, where,
// and the calibrated method.
func WarningText(w compare.Warning) string {
	what, ok := warningTexts[w.Code]
	if !ok {
		what = w.Code
	}
	if w.Entry == 0 { // not a finding of the calibration study
		var names, args []string
		for _, g := range w.Groups {
			names, args = append(names, Printable(g)), append(args, ShellWord(g))
		}
		return strings.NewReplacer("{units}", Thousands(int64(w.Units)), "{groups}", strings.Join(names, " and "),
			"{experiment}", ShellWord(w.Experiment), "{group-args}", strings.Join(args, " ")).Replace(what) + "."
	}
	what = strings.ReplaceAll(what, "{units}", strconv.Itoa(w.Units))
	s := fmt.Sprintf("%s (docs/calibration.md, \"Where a test is liberal\", entry %d; docs/%s)", what, w.Entry, w.Figure)
	if w.Alternative != "" {
		s += fmt.Sprintf("; use --method %s", w.Alternative)
	}
	return s + "."
}

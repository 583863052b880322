package report

import (
	"fmt"

	"github.com/verdict-ml/verdict/compare"
)

// warningTexts word each compare.Warning code: what the calibration study
// found on data like these.
var warningTexts = map[string]string{
	"naive-t-on-folds": "the folds of a k-fold evaluation share most of their training data, so a test that treats them as independent units rejects a true null far more often than alpha",
}

// WarningText says a warning in a sentence: what the study found, where,
// and the calibrated method.
func WarningText(w compare.Warning) string {
	what, ok := warningTexts[w.Code]
	if !ok {
		what = w.Code
	}
	return fmt.Sprintf("%s (calibration study: %s); use --method %s.", what, w.Figure, w.Alternative)
}

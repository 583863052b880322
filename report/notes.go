package report

import (
	"fmt"
	"strconv"

	"github.com/verdict-ml/verdict/stats"
)

// NoteText says a statistics result's note in words. WriteJSON and
// WriteFields print every stats.Note this way, so that a script reads the
// same sentence a person does.
func NoteText(n stats.Note) string {
	v := strconv.FormatFloat(n.Value, 'g', -1, 64)
	switch n.Code {
	case stats.NoteAllDifferencesZero:
		return "every difference is zero: the two sides never differ, so p = 1 (and t = 0 rather than 0/0)"
	case stats.NoteConstantDifference:
		return "every difference equals " + v + ": the variance is zero, so t is infinite and p = 0; the data show no spread to test against"
	case stats.NotePosteriorPointMass:
		return "every difference equals " + v + ": the posterior is a point mass there (scale 0)"
	case stats.NoteIndependentFolds:
		return "rho = 0: differences treated as independent; cross-validation folds usually need rho = n_test/(n_train+n_test)"
	case stats.NotePlacementsAgree:
		return "the two scorers' placement values agree on every sample: the AUC difference is 0 with no variance, so z = 0 and p = 1"
	case stats.NoteAUCVarianceZero:
		return "the AUC difference has zero estimated variance: z is infinite and p = 0"
	case stats.NoteAllBlocksTied:
		return "every block ties all models: there is no ranking to test, so chi2 = 0 and p = 1"
	case stats.NoteIdenticalRankings:
		return "every block ranks the models identically: chi2 is at its maximum N(K−1), so the Iman–Davenport F is infinite and its p = 0"
	case stats.NoteNoDiscordantPairs:
		return "the two sides never disagree (b + c = 0): no evidence of a difference, p = 1"
	case stats.NoteContinuityClamped:
		return "b = c: the continuity-corrected statistic is clamped at 0 (statsmodels and R give 1/(b + c))"
	case stats.NoteWorstCaseVariance:
		return "no variance of the paired differences was given, so the worst case for scores in [0, 1] on two uncorrelated sides, 2·¼ = ½, was assumed"
	case stats.NoteFoldPairsEqual:
		return "both folds of every repetition gave the same difference, so the 5×2cv variance is zero"
	case stats.NoteZerosDropped:
		return v + " zero difference(s) dropped before ranking (zero method wilcox)"
	case stats.NoteApproxManyPairs:
		return "auto mode: more than 50 differences, normal approximation"
	case stats.NoteApproxZeros:
		return "auto mode: zero differences present, normal approximation"
	case stats.NoteApproxTies:
		return "auto mode: tied differences present, normal approximation"
	case stats.NoteExactWithTies:
		return "exact p-value conditional on the tied ranks (permutation distribution of the signs)"
	case stats.NoteApproxFewPairs:
		return "normal approximation with only " + v + " differences is rough"
	}
	if n.Value != 0 {
		return fmt.Sprintf("%s (%s)", n.Code, v)
	}
	return string(n.Code)
}

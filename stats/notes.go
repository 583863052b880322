package stats

// Note records an edge case a result met: a documented answer where a
// statistic is undefined, or how a method chose to compute. It is a code,
// not words: package report says each in a sentence. Value is the number a
// note is about, where it has one (the constant difference, a count).
type Note struct {
	Code  NoteCode `json:"code"`
	Value float64  `json:"value,omitempty"`
}

// NoteCode names an edge case.
type NoteCode string

// The notes results carry, with what each means.
const (
	// NoteAllDifferencesZero: every difference is zero, so the sides never
	// differ; a t statistic is reported as 0 with p = 1 rather than 0/0, and
	// Wilcoxon's p is 1.
	NoteAllDifferencesZero NoteCode = "all-differences-zero"
	// NoteConstantDifference: every difference equals Value, so their
	// variance is zero; t is ±Inf and p = 0.
	NoteConstantDifference NoteCode = "constant-difference"
	// NotePosteriorPointMass: every difference equals Value, so the
	// Bayesian correlated t's posterior is a point mass there (scale 0).
	NotePosteriorPointMass NoteCode = "posterior-point-mass"
	// NoteIndependentFolds: rho = 0 treats the differences as independent,
	// which cross-validation folds usually are not.
	NoteIndependentFolds NoteCode = "independent-folds"
	// NotePlacementsAgree: the two scorers' DeLong placement values agree on
	// every sample: the AUC difference is 0 with no variance, z = 0, p = 1.
	NotePlacementsAgree NoteCode = "placements-agree"
	// NoteAUCVarianceZero: the AUC difference has zero estimated variance,
	// so z is infinite and p = 0.
	NoteAUCVarianceZero NoteCode = "auc-variance-zero"
	// NoteAllBlocksTied: every block ties all models; there is no ranking
	// to test, so chi2 = 0 and p = 1.
	NoteAllBlocksTied NoteCode = "all-blocks-tied"
	// NoteIdenticalRankings: every block ranks the models identically;
	// chi2 is at its maximum N(K−1), so the Iman–Davenport F is infinite
	// and its p = 0.
	NoteIdenticalRankings NoteCode = "identical-rankings"
	// NoteNoDiscordantPairs: McNemar's two sides never disagree (b + c =
	// 0), so there is no evidence of a difference and p = 1.
	NoteNoDiscordantPairs NoteCode = "no-discordant-pairs"
	// NoteContinuityClamped: b = c, and the continuity-corrected chi² is
	// clamped at 0 (statsmodels and R give 1/(b + c)).
	NoteContinuityClamped NoteCode = "continuity-clamped"
	// NoteWorstCaseVariance: no variance of the paired differences was
	// given, so the worst case for scores in [0, 1] on two uncorrelated
	// sides, 2·¼ = ½, was assumed.
	NoteWorstCaseVariance NoteCode = "worst-case-variance"
	// NoteFoldPairsEqual: both folds of every 5x2cv repetition gave the same
	// difference, so the 5x2cv variance is zero.
	NoteFoldPairsEqual NoteCode = "fold-pairs-equal"
	// NoteZerosDropped: Value zero differences were dropped before ranking
	// (Wilcoxon's zero method wilcox).
	NoteZerosDropped NoteCode = "zeros-dropped"
	// NoteApproxManyPairs, NoteApproxZeros and NoteApproxTies: in auto
	// mode, Wilcoxon used the normal approximation because there were more
	// than 50 differences, zero differences, or tied differences.
	NoteApproxManyPairs NoteCode = "normal-approximation-many-pairs"
	NoteApproxZeros     NoteCode = "normal-approximation-zeros"
	NoteApproxTies      NoteCode = "normal-approximation-ties"
	// NoteExactWithTies: the exact Wilcoxon p-value is conditional on the
	// tied ranks (the permutation distribution of the signs).
	NoteExactWithTies NoteCode = "exact-with-ties"
	// NoteApproxFewPairs: the normal approximation with only Value
	// differences is rough.
	NoteApproxFewPairs NoteCode = "normal-approximation-few-pairs"
)
